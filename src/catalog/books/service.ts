import { type AccessService, type Caller, missingPermission, relativeToLibrary, scopeFor } from '../../identity/index.js';
import { forbidden, notFound } from '../../http/errors.js';
import { bookFileMediaType } from '../../media/formats/book-media-types.js';
import type { PageRequest } from '../../http/pagination.js';
import type { ImageLookup } from '../../http/send-image.js';
import { parseCondition } from '../search/conditions.js';
import { parseSort, type SortDirection } from '../search/sort.js';
import { resolveBookFile, type BookFile } from './files.js';
import type { BookListMode, BookListQuery, BooksRepository, BookViewRow, BookWithLibrary } from './repository.js';
import { BOOK_FILTER_FIELDS, BOOK_SORT_FIELDS, type BookView } from './schemas.js';
import { bookView, fieldSources } from './views.js';

export interface BookListInput {
  sort?: string;
  order?: SortDirection;
  library_id?: string;
  series_id?: string;
}

export interface FilterInput {
  condition?: Record<string, unknown> | null;
  fullTextSearch?: string | null;
}

/** Covers of the books the caller may see (the pages service draws them; the composition root passes it in). */
export interface BookCovers {
  thumbnail(book: BookWithLibrary, accept: string | undefined): Promise<ImageLookup>;
  /** A cover chosen by a person at full size (JPEG), or null when the book shows its generated one. */
  chosenCover?(book: BookWithLibrary): Promise<ImageLookup | null>;
}

/** Book lists (plain, filtered, searched, and the reading lists), details, covers and file downloads. */
export class BooksService {
  constructor(
    private readonly repo: BooksRepository,
    private readonly pages: BookCovers,
    private readonly access: AccessService<BookWithLibrary>,
  ) {}

  private async views(caller: Caller, rows: readonly BookViewRow[]): Promise<BookView[]> {
    const ids = rows.map((r) => r.id);
    const [progress, series, locks] = await Promise.all([
      this.repo.progressOf(caller.user.id, ids),
      this.repo.seriesNames(rows.map((r) => r.series_id)),
      this.repo.locks(ids),
    ]);
    const views = rows.map((r) => bookView(r, progress.get(r.id), series.get(r.series_id), locks.get(r.id)));
    return caller.isAdmin ? views : this.withoutServerPaths(views);
  }

  /** Analysis errors name the file by its absolute path; below admin they name it relative to its library. */
  private async withoutServerPaths(views: BookView[]): Promise<BookView[]> {
    const failed = views.filter((v) => v.analysis_error !== null);
    if (failed.length === 0) return views;
    const roots = await this.repo.libraryRoots(failed.map((v) => v.library_id));
    for (const view of failed) view.analysis_error = relativeToLibrary(view.analysis_error!, roots.get(view.library_id));
    return views;
  }

  private async run(
    caller: Caller,
    query: Omit<BookListQuery, 'userId' | 'scope' | 'offset' | 'limit'>,
    page: PageRequest,
  ): Promise<{ total: number; data: BookView[] }> {
    const { total, rows } = await this.repo.list({
      ...query,
      userId: caller.user.id,
      scope: scopeFor(caller),
      offset: page.offset,
      limit: page.pageSize,
    });
    return { total, data: await this.views(caller, rows) };
  }

  list(caller: Caller, input: BookListInput, page: PageRequest) {
    return this.run(
      caller,
      { libraryId: input.library_id, seriesId: input.series_id, sort: parseSort(input.sort, input.order, BOOK_SORT_FIELDS) },
      page,
    );
  }

  filter(caller: Caller, body: FilterInput, sort: { sort?: string; order?: SortDirection }, page: PageRequest) {
    return this.run(
      caller,
      {
        condition: parseCondition(body.condition, BOOK_FILTER_FIELDS),
        fullText: body.fullTextSearch?.trim() || null,
        sort: parseSort(sort.sort, sort.order, BOOK_SORT_FIELDS),
      },
      page,
    );
  }

  readingList(caller: Caller, mode: BookListMode, page: PageRequest) {
    return this.run(caller, { mode, sort: null }, page);
  }

  /**
   * Distinct authors (name and role) of the present books the caller can see, optionally of some libraries or
   * series, with a case-insensitive name part; sorted by name, then role.
   */
  async authors(
    caller: Caller,
    input: { library_ids?: readonly string[]; series_ids?: readonly string[]; search?: string | null } = {},
  ): Promise<{ name: string; role: string }[]> {
    const rows = await this.repo.authors({
      scope: scopeFor(caller),
      libraryIds: input.library_ids,
      seriesIds: input.series_ids,
      search: input.search?.trim() || null,
    });
    return rows.sort((a, b) => a.name.localeCompare(b.name) || a.role.localeCompare(b.role));
  }

  /** On Deck, optionally of some libraries only (none: every library the caller sees). */
  async onDeck(caller: Caller, page: PageRequest, libraryIds: readonly string[] = []): Promise<{ total: number; data: BookView[] }> {
    const { total, rows } = await this.repo.onDeck(caller.user.id, scopeFor(caller), page.offset, page.pageSize, libraryIds);
    return { total, data: await this.views(caller, rows) };
  }

  /** The book after (+1) or before (-1) this one in its series (the order of the series' book list); 404 at either end. */
  async neighbour(caller: Caller, id: string, step: 1 | -1): Promise<BookView> {
    const book = await this.access.book(caller, id);
    const row = await this.repo.neighbour(book, step);
    if (!row) throw notFound(step === 1 ? 'Next book' : 'Previous book');
    return (await this.views(caller, [row]))[0]!;
  }

  /** The views of these books the caller sees (any order; missing and hidden ones left out), as lists show them. */
  async viewsOf(caller: Caller, ids: readonly string[]): Promise<BookView[]> {
    return this.views(caller, await this.access.visible(caller, await this.repo.viewRows(ids)));
  }

  async get(caller: Caller, id: string): Promise<BookView> {
    const book = await this.access.book(caller, id);
    const view = (await this.views(caller, [book]))[0]!;
    return { ...view, metadata: { ...view.metadata, sources: { ...fieldSources(book.metadata), ...view.metadata.sources } } };
  }

  async thumbnail(caller: Caller, id: string, accept: string | undefined): Promise<ImageLookup> {
    return this.pages.thumbnail(await this.access.book(caller, id), accept);
  }

  /** The cover a person chose for the book, full size, or null (then the first page is the cover). */
  async chosenCover(caller: Caller, id: string): Promise<ImageLookup | null> {
    return (await this.pages.chosenCover?.(await this.access.book(caller, id))) ?? null;
  }

  /** The original file: where it is, its size, and the name to offer the client. */
  async file(caller: Caller, id: string): Promise<BookFile & { fileName: string; etag: string; mediaType: string }> {
    // The file holds every page: a key that may see books but not their pages (the Metadata tool preset) does
    // not get them by downloading (spec, Permissions: pages-read "View page images").
    if (!caller.permissions.has('pages-read')) throw missingPermission('pages-read', ": a book's file holds its pages");
    const book = await this.access.book(caller, id);
    // A file the analysis could not read may be anything that happened to lie in the folder (an archive of
    // secrets named .cbz): only an administrator, who can look at the server anyway, downloads it.
    if (book.analysis_error !== null && !caller.isAdmin)
      throw forbidden('This file could not be analysed as a book; only an administrator can download it');
    const file = await resolveBookFile(book);
    // The content hash names the bytes the last scan read; a file replaced since (another size or time) is named
    // by what it is now, so a cached or half-downloaded copy of the old one is never taken for it.
    const scanned = book.hash !== null && Number(book.size) === file.size && Number(book.mtime_ms) === Math.floor(file.mtimeMs);
    return {
      ...file,
      fileName: book.file_name,
      etag: `"${scanned ? book.hash : `${file.size}-${Math.floor(file.mtimeMs)}`}"`,
      mediaType: bookFileMediaType(book.format),
    };
  }
}
