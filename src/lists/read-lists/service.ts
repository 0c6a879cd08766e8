import { newId, nowIso, toBool } from '../../db/ids.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import { type Caller, type ContentScope, EVERYTHING, type InSeries, scopeFor, scopeOfUser } from '../../identity/index.js';
import { listNameKey, requireSharedRight, viewerOf } from '../core/lists.js';
import type { BookView } from '../../catalog/index.js';
import { CblError, cblFileName, parseCbl, writeCbl, type CblEntry } from './cbl.js';
import { MatchIndex, comicVineIssues, declaredYear, entryKeys, keysOfSeries, seriesKey, type CatalogSeries } from './match.js';
import { ReadListsRepository, type ItemWithBook, type ReadListItemRow, type ReadListRow, type ReadListViewRow } from './repository.js';
import type {
  CblEntryReport,
  ImportFields,
  ImportReport,
  ReadListCreate,
  ReadListDetail,
  ReadListItemView,
  ReadListProgress,
  ReadListUpdate,
  ReadListView,
} from './schemas.js';

/**
 * Book views for ids the caller may see. BooksService renders one book at a time (`get`); `viewsOf`, when it
 * offers one, renders many in one go.
 */
export interface BookViews {
  get(caller: Caller, id: string): Promise<BookView>;
  viewsOf?(caller: Caller, ids: readonly string[]): Promise<BookView[]>;
}

/** What read lists are built from (the composition root passes the lists features' common deps). */
export interface ReadListsDeps {
  /** The access-checked lookup of one book (404 when absent or hidden). */
  access: { book(caller: Caller, id: string): Promise<InSeries> };
  books: BookViews;
}

/** The options of an import besides the file. */
export type ImportOptions = ImportFields & { dryRun: boolean; fileName: string | null };

/** The `wanted_*` columns of a CBL entry. */
const wantedOf = (e: CblEntry) => ({
  wanted_series: e.series,
  wanted_number: e.number,
  wanted_volume: e.volume,
  wanted_year: e.year,
  wanted_cv_series: e.cvSeries,
  wanted_cv_issue: e.cvIssue,
});

const entryOf = (i: ReadListItemRow): CblEntry | null =>
  i.wanted_series === null
    ? null
    : {
        series: i.wanted_series,
        number: i.wanted_number,
        volume: i.wanted_volume,
        year: i.wanted_year,
        cvSeries: i.wanted_cv_series,
        cvIssue: i.wanted_cv_issue,
      };

/**
 * Read lists: named, ordered lists of books across series, private to their owner or shared, with ComicRack CBL
 * import and export.
 *
 * Who sees what: a caller sees the shared lists and its own (another user's private list is a 404), and inside a
 * list only the books it may see (docs/household-access.md); counts and covers count only those. A restricted
 * caller does not see a shared list with none of its books visible, nor a shared list's entries waiting for a
 * book (their wanted series could name one hidden from it). Changing one's own list needs only the
 * route's permission (books-read or read-lists-read); a shared one needs read-lists-write, deleting it
 * read-lists-delete (docs/decisions/040).
 */
export class ReadListsService {
  constructor(
    private readonly repo: ReadListsRepository,
    readonly deps: ReadListsDeps,
  ) {}

  private static view(row: ReadListViewRow): ReadListView {
    return {
      id: row.id,
      name: row.name,
      summary: row.summary,
      shared: row.owner_user_id === null,
      source: row.source === 'comicinfo' ? 'comicinfo' : 'user',
      edited: toBool(row.edited),
      cover_book_id: row.effective_cover_book_id,
      book_count: row.book_count,
      missing_count: row.missing_count,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /** A list the caller sees, or 404. */
  private async seen(caller: Caller, id: string): Promise<ReadListViewRow> {
    const row = await this.repo.view(viewerOf(caller), id);
    if (!row) throw notFound('Read list');
    return row;
  }

  /** A list the caller sees and may change (a shared one needs read-lists-write; deleting it read-lists-delete). */
  private async editable(caller: Caller, id: string, permission: SharedPermission = 'read-lists-write'): Promise<ReadListViewRow> {
    const row = await this.seen(caller, id);
    if (row.owner_user_id === null) requireSharedRight(caller, permission, ': the read list is shared');
    return row;
  }

  /** The changes every edit by a person makes to the list row. */
  private static touched(row: ReadListRow): { updated_at: string; edited?: number } {
    return { updated_at: nowIso(), ...(row.source === 'comicinfo' ? { edited: 1 } : {}) };
  }

  /** Entries the caller sees, in order. */
  private async shownItems(caller: Caller, row: ReadListRow): Promise<ItemWithBook[]> {
    const viewer = viewerOf(caller);
    const gaps = viewer.scope.all || row.owner_user_id === caller.user.id;
    // An entry whose book was purged and that never named one (added by id) has nothing left to show.
    return (await this.repo.items(viewer, row.id)).filter((i) => (i.book_id === null ? gaps && i.wanted_series !== null : i.visible === 1));
  }

  private async bookViews(caller: Caller, ids: readonly string[]): Promise<Map<string, BookView>> {
    const out = new Map<string, BookView>();
    if (ids.length === 0) return out;
    const { books } = this.deps;
    if (books.viewsOf) {
      for (const view of await books.viewsOf(caller, ids)) out.set(view.id, view);
      return out;
    }
    // One at a time, a few at once; a book gone since the entries were read is left out.
    const queue = [...ids];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        try {
          out.set(id, await books.get(caller, id));
        } catch (err) {
          if (!(err instanceof AppError && err.statusCode === 404)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, ids.length) }, worker));
    return out;
  }

  private async detail(caller: Caller, id: string): Promise<ReadListDetail> {
    return this.detailOf(caller, await this.seen(caller, id));
  }

  /**
   * A list just made, as its maker sees it: a restricted maker of a shared list that holds none of its books
   * gets it empty (anyone like it does not see the list at all).
   */
  private async created(caller: Caller, id: string): Promise<ReadListDetail> {
    const row = await this.repo.view(viewerOf(caller), id);
    if (row) return this.detailOf(caller, row);
    const list = await this.repo.get(id);
    if (!list) throw notFound('Read list');
    return this.detailOf(caller, { ...list, book_count: 0, missing_count: 0, effective_cover_book_id: null });
  }

  private async detailOf(caller: Caller, row: ReadListViewRow): Promise<ReadListDetail> {
    const items = await this.shownItems(caller, row);
    const views = await this.bookViews(
      caller,
      items.flatMap((i) => (i.book_id === null ? [] : [i.book_id])),
    );
    const shown: ReadListItemView[] = [];
    for (const item of items) {
      const book = item.book_id === null ? null : (views.get(item.book_id) ?? null);
      if (item.book_id !== null && book === null) continue;
      const wanted = entryOf(item);
      shown.push({
        id: item.id,
        position: shown.length,
        book_id: item.book_id,
        book,
        wanted: wanted && {
          series: wanted.series,
          number: wanted.number,
          volume: wanted.volume,
          year: wanted.year,
          cv_series: wanted.cvSeries,
          cv_issue: wanted.cvIssue,
        },
      });
    }
    return { ...ReadListsService.view(row), items: shown };
  }

  async list(caller: Caller, input: { search?: string }, page: PageRequest): Promise<{ total: number; data: ReadListView[] }> {
    const { total, rows } = await this.repo.page(viewerOf(caller), input.search?.trim() || null, page.offset, page.pageSize);
    return { total, data: rows.map(ReadListsService.view) };
  }

  get(caller: Caller, id: string): Promise<ReadListDetail> {
    return this.detail(caller, id);
  }

  /** The lists holding a book the caller sees (404 for a book it does not). */
  async ofBook(caller: Caller, bookId: string, page: PageRequest): Promise<{ total: number; data: ReadListView[] }> {
    await this.deps.access.book(caller, bookId);
    const { total, rows } = await this.repo.ofBook(viewerOf(caller), bookId, page.offset, page.pageSize);
    return { total, data: rows.map(ReadListsService.view) };
  }

  /** 409 when the name is taken where the list would live. */
  private async checkName(ownerId: string | null, name: string, exceptId?: string): Promise<void> {
    if (await this.repo.nameTaken(ownerId, listNameKey(name), exceptId))
      throw conflict(
        ownerId === null
          ? `A shared read list named "${name.trim()}" exists already`
          : `You have a read list named "${name.trim()}" already`,
      );
  }

  /** The ids, each once in first-seen order; 400 naming those the caller cannot see (absent and hidden alike). */
  private async visibleBookIds(caller: Caller, ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const shown = await this.repo.shownBooks(viewerOf(caller), unique);
    const unknown = unique.filter((id) => !shown.has(id));
    if (unknown.length > 0)
      throw badRequest(unknown.length > 1 ? `Unknown books: ${unknown.join(', ')}` : `Unknown book: ${unknown.join(', ')}`, {
        book_ids: unknown,
      });
    return unique;
  }

  private async createList(
    caller: Caller,
    input: { name: string; summary?: string; shared?: boolean },
    items: Array<Omit<ReadListItemRow, 'id' | 'read_list_id' | 'position'>>,
  ): Promise<string> {
    if (input.shared) requireSharedRight(caller, 'read-lists-write', ': a shared read list');
    const owner = input.shared ? null : caller.user.id;
    const name = input.name.trim();
    await this.checkName(owner, name);
    const id = newId();
    const now = nowIso();
    await this.repo.create(
      {
        id,
        name,
        name_key: listNameKey(name),
        summary: input.summary ?? '',
        owner_user_id: owner,
        cover_book_id: null,
        source: 'user',
        edited: 0,
        created_at: now,
        updated_at: now,
      },
      items.map((item, position) => ({ ...item, id: newId(), read_list_id: id, position })),
    );
    return id;
  }

  async create(caller: Caller, input: ReadListCreate): Promise<ReadListDetail> {
    if (input.shared) requireSharedRight(caller, 'read-lists-write', ': a shared read list');
    const bookIds = await this.visibleBookIds(caller, input.book_ids);
    const id = await this.createList(
      caller,
      input,
      bookIds.map((bookId) => ({ book_id: bookId, ...NO_WANTED })),
    );
    return this.created(caller, id);
  }

  async update(caller: Caller, id: string, input: ReadListUpdate): Promise<ReadListView> {
    const row = await this.editable(caller, id);
    const patch: Partial<ReadListRow> = ReadListsService.touched(row);
    let owner = row.owner_user_id;
    if (input.shared !== undefined && input.shared !== (owner === null)) {
      requireSharedRight(caller, 'read-lists-write', input.shared ? ': sharing a read list' : ': unsharing a read list');
      owner = input.shared ? null : caller.user.id;
      patch.owner_user_id = owner;
    }
    const name = input.name?.trim() ?? row.name;
    if (input.name !== undefined || owner !== row.owner_user_id) await this.checkName(owner, name, id);
    if (input.name !== undefined) Object.assign(patch, { name, name_key: listNameKey(name) });
    if (input.summary !== undefined) patch.summary = input.summary;
    if (input.cover_book_id !== undefined) {
      if (input.cover_book_id !== null) {
        const items = await this.shownItems(caller, row);
        if (!items.some((i) => i.book_id === input.cover_book_id)) throw badRequest('The cover must be a book of the read list');
      }
      patch.cover_book_id = input.cover_book_id;
    }
    await this.repo.update(id, patch);
    return ReadListsService.view((await this.repo.view(viewerOf(caller), id)) ?? { ...row, ...patch });
  }

  async remove(caller: Caller, id: string): Promise<void> {
    await this.editable(caller, id, 'read-lists-delete');
    await this.repo.remove(id);
  }

  /** Adds books (those in the list already stay where they are) before the entry at `position`, or at the end. */
  async addBooks(caller: Caller, id: string, input: { book_ids: string[]; position?: number }): Promise<ReadListDetail> {
    const row = await this.editable(caller, id);
    const bookIds = await this.visibleBookIds(caller, input.book_ids);
    const shown = await this.shownItems(caller, row);
    const anchor = input.position === undefined ? undefined : shown[input.position]?.id;
    await this.repo.rewrite(id, ReadListsService.touched(row), (current) => {
      const held = new Set(current.map((i) => i.book_id));
      const added = bookIds
        .filter((b) => !held.has(b))
        .map((bookId): ReadListItemRow => ({ id: newId(), read_list_id: id, position: 0, book_id: bookId, ...NO_WANTED }));
      const at = anchor === undefined ? -1 : current.findIndex((i) => i.id === anchor);
      return at < 0 ? [...current, ...added] : [...current.slice(0, at), ...added, ...current.slice(at)];
    });
    return this.detail(caller, id);
  }

  async removeBook(caller: Caller, id: string, bookId: string): Promise<void> {
    const row = await this.editable(caller, id);
    const shown = await this.shownItems(caller, row);
    if (!shown.some((i) => i.book_id === bookId)) throw notFound('Book in the read list');
    const patch = { ...ReadListsService.touched(row), ...(row.cover_book_id === bookId ? { cover_book_id: null } : {}) };
    await this.repo.rewrite(id, patch, (current) => current.filter((i) => i.book_id !== bookId));
  }

  /**
   * New order of the books the caller sees: `book_ids` lists each of them once. Entries the caller does not see
   * (books hidden from it) and entries waiting for a book keep their places; the books fill the places the caller's
   * books held, in the new order.
   */
  async order(caller: Caller, id: string, bookIds: readonly string[]): Promise<ReadListDetail> {
    const row = await this.editable(caller, id);
    const shown = (await this.shownItems(caller, row)).filter((i) => i.book_id !== null);
    const current = new Set(shown.map((i) => i.book_id!));
    const given = new Set(bookIds);
    const missing = [...current].filter((b) => !given.has(b));
    const unknown = [...given].filter((b) => !current.has(b));
    if (given.size !== bookIds.length || missing.length > 0 || unknown.length > 0)
      throw badRequest('book_ids must name every book of the read list once, and nothing else', {
        missing,
        unknown,
        repeated: given.size !== bookIds.length,
      });
    const itemIds = new Set(shown.map((i) => i.id));
    await this.repo.rewrite(id, ReadListsService.touched(row), (items) => {
      const byBook = new Map(items.filter((i) => itemIds.has(i.id)).map((i) => [i.book_id!, i]));
      const next = bookIds.map((b) => byBook.get(b)!);
      let k = 0;
      return items.map((i) => (itemIds.has(i.id) ? next[k++]! : i));
    });
    return this.detail(caller, id);
  }

  /** Gives an entry a book (an ambiguous or missing CBL entry resolved by hand). */
  async setItemBook(caller: Caller, id: string, itemId: string, bookId: string): Promise<ReadListDetail> {
    const row = await this.editable(caller, id);
    const shown = await this.shownItems(caller, row);
    if (!shown.some((i) => i.id === itemId)) throw notFound('Read list entry');
    await this.visibleBookIds(caller, [bookId]);
    await this.repo.rewrite(id, ReadListsService.touched(row), (items) => {
      if (items.some((i) => i.book_id === bookId && i.id !== itemId)) throw conflict('The book is in the read list already');
      return items.map((i) => (i.id === itemId ? { ...i, book_id: bookId } : i));
    });
    return this.detail(caller, id);
  }

  async removeItem(caller: Caller, id: string, itemId: string): Promise<void> {
    const row = await this.editable(caller, id);
    const shown = await this.shownItems(caller, row);
    const item = shown.find((i) => i.id === itemId);
    if (!item) throw notFound('Read list entry');
    const patch = {
      ...ReadListsService.touched(row),
      ...(item.book_id !== null && row.cover_book_id === item.book_id ? { cover_book_id: null } : {}),
    };
    await this.repo.rewrite(id, patch, (items) => items.filter((i) => i.id !== itemId));
  }

  /** The caller's progress over the books it sees in the list, and the next one to read. */
  async progress(caller: Caller, id: string): Promise<ReadListProgress> {
    const row = await this.seen(caller, id);
    const books = (await this.shownItems(caller, row)).flatMap((i) => (i.book_id === null ? [] : [i.book_id]));
    const progress = await this.repo.progressOf(caller.user.id, books);
    let read = 0;
    let inProgress = 0;
    let next: string | null = null;
    for (const b of books) {
      const p = progress.get(b);
      if (p?.completed) read++;
      else {
        if (p) inProgress++;
        next ??= b;
      }
    }
    const nextBook = next === null ? null : ((await this.bookViews(caller, [next])).get(next) ?? null);
    return {
      total: books.length,
      read,
      in_progress: inProgress,
      unread: books.length - read - inProgress,
      next_book_id: nextBook?.id ?? null,
      next_book: nextBook,
    };
  }

  /**
   * The list as a ComicRack .cbl file, with what the caller sees. An entry that came from a CBL file is written as
   * it came; a book added by id as its series (without a trailing year group), number, start year (declared by the
   * series' name or folder, or the book's ComicInfo Volume when a year, else the series' earliest year), year, and
   * its ComicVine issue when its links name one.
   */
  async exportCbl(caller: Caller, id: string): Promise<{ fileName: string; xml: string }> {
    const row = await this.seen(caller, id);
    const items = await this.shownItems(caller, row);
    const books = await this.repo.exportRows(items.flatMap((i) => (i.book_id === null ? [] : [i.book_id])));
    const entries: CblEntry[] = [];
    for (const item of items) {
      const wanted = entryOf(item);
      if (wanted) {
        entries.push(wanted);
        continue;
      }
      const book = item.book_id === null ? undefined : books.get(item.book_id);
      if (!book) continue;
      const start =
        declaredYear(book.series_name) ??
        declaredYear(book.series_title) ??
        declaredYear(book.series_path.slice(book.series_path.lastIndexOf('/') + 1)) ??
        (book.volume !== null && book.volume >= 1800 && book.volume <= 2100 ? book.volume : null) ??
        book.series_year;
      const cvIssue = comicVineIssues(book.metadata)[0] ?? null;
      entries.push({
        series: book.series_name.replace(/\s*[([]\s*(?:1[89]|20)\d{2}[^)\]]*[)\]]\s*$/, '').trim() || book.series_name,
        number: book.number,
        volume: start === null ? null : String(start),
        year: book.year === null ? null : String(book.year),
        cvSeries: null,
        cvIssue,
      });
    }
    return { fileName: cblFileName(row.name), xml: writeCbl({ name: row.name, entries }) };
  }

  /** The series and books the entries may name, among those `scope` sees. */
  private async matchIndex(scope: ContentScope, entries: readonly CblEntry[]): Promise<MatchIndex> {
    const keys = entryKeys(entries);
    const series: CatalogSeries[] = (await this.repo.catalogSeries(scope)).filter((s) => keysOfSeries(s).some((k) => keys.has(k)));
    const books = await this.repo.catalogBooks(
      scope,
      series.map((s) => s.id),
    );
    return new MatchIndex(
      series,
      books.map((b) => ({
        ...b,
        volume: b.volume === null ? null : Number(b.volume),
        year: b.year === null ? null : Number(b.year),
        cvIssues: comicVineIssues(b.metadata),
      })),
    );
  }

  /**
   * Imports a .cbl file: each entry matched to a book the caller sees (cbl match rules: match.ts), `resolutions`
   * choosing books for entries by index. A dry run only reports; otherwise the list is created with every entry:
   * unmatched ones (missing, or ambiguous and unresolved) wait for a book with what they asked for.
   */
  async importCbl(caller: Caller, data: Buffer, options: ImportOptions): Promise<ImportReport> {
    let parsed;
    try {
      parsed = parseCbl(data);
    } catch (err) {
      if (err instanceof CblError) throw badRequest(err.message);
      throw err;
    }
    const { entries } = parsed;
    if (options.shared && !options.dryRun) requireSharedRight(caller, 'read-lists-write', ': a shared read list');
    const resolutions = new Map<number, string>();
    for (const [key, bookId] of Object.entries(options.resolutions ?? {})) {
      const index = Number(key);
      if (index >= entries.length) throw badRequest(`resolutions name entry ${index}; the file has ${entries.length} (0-based)`);
      resolutions.set(index, bookId);
    }
    if (resolutions.size > 0) await this.visibleBookIds(caller, [...resolutions.values()]);

    const index = await this.matchIndex(scopeFor(caller), entries);
    const seen = new Set<string>();
    const report: CblEntryReport[] = entries.map((entry, i) => {
      const result = index.match(entry);
      const resolved = resolutions.get(i);
      const out: CblEntryReport = {
        index: i,
        series: entry.series,
        number: entry.number,
        volume: entry.volume,
        year: entry.year,
        ...result,
        ...(resolved ? { status: 'matched', book_id: resolved, resolved: true } : {}),
      };
      if (out.book_id) {
        if (seen.has(out.book_id)) out.duplicate = true;
        seen.add(out.book_id);
      }
      return out;
    });
    const name = (options.name ?? parsed.name ?? options.fileName?.replace(/\.cbl$/i, '') ?? '').trim() || 'Imported reading list';
    const count = (status: CblEntryReport['status']) => report.filter((r) => r.status === status).length;
    let readList: ReadListDetail | null = null;
    if (!options.dryRun) {
      const items = report
        .filter((r) => !r.duplicate)
        .map((r) => ({ book_id: r.status === 'matched' ? r.book_id! : null, ...wantedOf(entries[r.index]!) }));
      const id = await this.createList(caller, { name, summary: options.summary, shared: options.shared }, items);
      readList = await this.created(caller, id);
    }
    return {
      dry_run: options.dryRun,
      name,
      matched: count('matched'),
      ambiguous: count('ambiguous'),
      missing: count('missing'),
      entries: report,
      read_list: readList,
    };
  }

  /**
   * Fills entries waiting for a book when these books arrive (a scan added or changed them): an entry whose series
   * is one of theirs is matched again, within what the list's owner sees (a shared list: the whole catalog), and
   * takes its book when exactly one matches. Returns how many entries were filled. Meant to run after a scan's
   * batches commit (attach.ts); costs one query when no entry waits.
   */
  async fillMissing(bookIds: readonly string[]): Promise<number> {
    if (bookIds.length === 0) return 0;
    const gaps = await this.repo.gaps();
    if (gaps.length === 0) return 0;
    const arrived = new Set((await this.repo.seriesOfBooks(bookIds)).flatMap((s) => keysOfSeries(s)));
    const relevant = gaps.filter((g) => arrived.has(seriesKey(g.wanted_series!)));
    if (relevant.length === 0) return 0;
    const byOwner = new Map<string | null, typeof relevant>();
    for (const gap of relevant) byOwner.set(gap.owner_user_id, [...(byOwner.get(gap.owner_user_id) ?? []), gap]);
    let filled = 0;
    const now = nowIso();
    for (const [owner, ownerGaps] of byOwner) {
      let scope: ContentScope = EVERYTHING;
      if (owner !== null) {
        const user = await this.repo.owner(owner);
        if (!user) continue;
        scope = scopeOfUser(user);
      }
      const entries = ownerGaps.map((g) => entryOf(g)!);
      const index = await this.matchIndex(scope, entries);
      for (const [i, gap] of ownerGaps.entries()) {
        const result = index.match(entries[i]!);
        if (result.status === 'matched' && (await this.repo.fill(gap.id, gap.read_list_id, result.book_id!, now))) filled++;
      }
    }
    return filled;
  }
}

const NO_WANTED = {
  wanted_series: null,
  wanted_number: null,
  wanted_volume: null,
  wanted_year: null,
  wanted_cv_series: null,
  wanted_cv_issue: null,
} as const;

type SharedPermission = 'read-lists-write' | 'read-lists-delete';

/** Shared lists are the household's: changing one needs read-lists-write, deleting one read-lists-delete. */
