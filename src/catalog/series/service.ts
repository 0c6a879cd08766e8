import {
  type AccessService,
  type Caller,
  type DeviceHint,
  type InSeries,
  normalizeLabels,
  type ProgressOrigin,
  scopeFor,
} from '../../identity/index.js';
import { notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import type { BooksRepository } from '../books/repository.js';
import type { BookCovers, BooksService } from '../books/service.js';
import type { BookView } from '../books/schemas.js';
import { parseExternalIds, parseList, parseObjects } from '../books/views.js';
import type { HistoryGroup } from '../metadata/history-rows.js';
import type { ImageLookup } from '../../http/send-image.js';
import { parseCondition } from '../search/conditions.js';
import { parseSort, type SortDirection } from '../search/sort.js';
import type { SeriesFacetField, SeriesListQuery, SeriesRepository, SeriesRow, SeriesViewRow } from './repository.js';
import { SERIES_FILTER_FIELDS, SERIES_SORT_FIELDS, type SeriesUpdate, type SeriesView } from './schemas.js';

/** What marking a series read needs of reading's progress. */
export interface SeriesProgress {
  markSeries(
    caller: Caller,
    id: string,
    read: boolean,
    hint: DeviceHint,
    origin?: ProgressOrigin,
  ): Promise<{ series_id: string; books_updated: number }>;
}

export interface SeriesDeps {
  repo: SeriesRepository;
  /** The series the caller may see. */
  access: AccessService<InSeries, SeriesRow>;
  books: BooksRepository;
  booksService: BooksService;
  /** Book covers (the series shows its first book's unless one was chosen for it). */
  covers: BookCovers;
  /** The cover a person chose for the series, or null. */
  chosenCover?: (seriesId: string, accept: string | undefined) => Promise<ImageLookup | null>;
  /** Marks every book of a series read or unread (reading/progress fills it in). */
  progress: SeriesProgress;
  /** Records a change of sharing labels in the metadata history (so that it is listed and can be undone). */
  labelsHistory: (seriesId: string, change: { before: string[]; after: string[]; userId: string; group?: HistoryGroup }) => Promise<void>;
}

/** Series lists (plain, filtered, searched, reading lists), details, books, covers, and marking read/unread. */
export class SeriesService {
  constructor(private readonly deps: SeriesDeps) {}

  private async views(caller: Caller, rows: readonly SeriesViewRow[]): Promise<SeriesView[]> {
    const ids = rows.map((r) => r.id);
    const [counts, labels, locks, sources] = await Promise.all([
      this.deps.repo.readCounts(caller.user.id, ids),
      this.deps.repo.sharingLabels(ids),
      this.deps.repo.locks(ids),
      this.deps.repo.fieldSources(ids),
    ]);
    return rows.map((r) => {
      const c = counts.get(r.id) ?? { read: 0, inProgress: 0 };
      const bookCount = Number(r.book_count);
      return {
        id: r.id,
        library_id: r.library_id,
        name: r.name,
        path: r.path,
        book_count: bookCount,
        books_read_count: c.read,
        books_unread_count: Math.max(0, bookCount - c.read - c.inProgress),
        books_in_progress_count: c.inProgress,
        file_size: Number(r.total_size),
        page_count: Number(r.total_pages),
        metadata: {
          title: r.title ?? r.name,
          summary: r.summary,
          publisher: r.publisher,
          genres: parseList(r.genres),
          tags: parseList(r.tags),
          status: r.status,
          language: r.language,
          year: r.year === null ? null : Number(r.year),
          reading_direction: r.reading_direction,
          age_rating: r.age_rating,
          age: r.age === null ? null : Number(r.age),
          sort_title: r.sort_name,
          total_book_count: r.total_book_count === null ? null : Number(r.total_book_count),
          links: parseObjects(r.links, ['label', 'url']),
          alternate_titles: parseObjects(r.alternate_titles, ['label', 'title']),
          authors: parseObjects(r.authors, ['name', 'role']),
          external_ids: parseExternalIds(r.external_ids),
        },
        sharing_labels: labels.get(r.id) ?? [],
        locks: locks.get(r.id) ?? {},
        field_sources: sources.get(r.id) ?? {},
        created_at: r.created_at,
        updated_at: r.updated_at,
      };
    });
  }

  private async run(
    caller: Caller,
    query: Omit<SeriesListQuery, 'userId' | 'scope' | 'offset' | 'limit'>,
    page: PageRequest,
  ): Promise<{ total: number; data: SeriesView[] }> {
    const { total, rows } = await this.deps.repo.list({
      ...query,
      userId: caller.user.id,
      scope: scopeFor(caller),
      offset: page.offset,
      limit: page.pageSize,
    });
    return { total, data: await this.views(caller, rows) };
  }

  list(caller: Caller, input: { sort?: string; library_id?: string }, page: PageRequest) {
    return this.run(caller, { libraryId: input.library_id, sort: parseSort(input.sort, undefined, SERIES_SORT_FIELDS) }, page);
  }

  filter(
    caller: Caller,
    body: { condition?: Record<string, unknown> | null; fullTextSearch?: string | null },
    sort: string | undefined,
    page: PageRequest,
  ) {
    return this.run(
      caller,
      {
        condition: parseCondition(body.condition, SERIES_FILTER_FIELDS),
        fullText: body.fullTextSearch?.trim() || null,
        sort: parseSort(sort, undefined, SERIES_SORT_FIELDS),
      },
      page,
    );
  }

  search(caller: Caller, body: { query: string; library_id?: string }, page: PageRequest) {
    return this.run(caller, { fullText: body.query, libraryId: body.library_id, sort: null }, page);
  }

  inProgress(caller: Caller, page: PageRequest) {
    return this.run(caller, { inProgressOnly: true, sort: null }, page);
  }

  recentlyAdded(caller: Caller, page: PageRequest) {
    return this.run(caller, { sort: { field: 'date_added', direction: 'desc' } }, page);
  }

  recentlyUpdated(caller: Caller, page: PageRequest) {
    return this.run(caller, { sort: { field: 'date_updated', direction: 'desc' } }, page);
  }

  /**
   * The distinct values of a field over the present series the caller can see (optionally of some libraries):
   * genres and tags by element; publisher, language and age rating as stored, with null (last) when some
   * series has none. Sorted by text.
   */
  async facet(
    caller: Caller,
    field: SeriesFacetField,
    input: { library_ids?: readonly string[]; series_ids?: readonly string[] } = {},
  ): Promise<(string | null)[]> {
    const values = await this.deps.repo.facet(field, {
      scope: scopeFor(caller),
      libraryIds: input.library_ids,
      seriesIds: input.series_ids,
    });
    return values.sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  }

  /** The distinct release years of the present series the caller can see, newest first. */
  async releaseYears(caller: Caller, input: { library_ids?: readonly string[]; series_ids?: readonly string[] } = {}): Promise<number[]> {
    const years = await this.deps.repo.releaseYears({
      scope: scopeFor(caller),
      libraryIds: input.library_ids,
      seriesIds: input.series_ids,
    });
    return years.sort((a, b) => b - a);
  }

  /** The display titles (`metadata.title`) of the series the caller can see among `ids`. */
  async titles(caller: Caller, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const rows = await this.deps.repo.titles(ids);
    for (const r of await this.deps.access.visible(
      caller,
      rows.map((row) => ({ ...row, series_id: row.id })),
    ))
      out.set(r.id, r.title ?? r.name);
    return out;
  }

  private require(caller: Caller, id: string): Promise<SeriesRow> {
    return this.deps.access.series(caller, id);
  }

  /** The views of these series the caller sees, in the order given (lists of series chosen by id: collections, shelves). */
  async viewsOf(caller: Caller, ids: readonly string[]): Promise<SeriesView[]> {
    const rows = await this.deps.access.visible(
      caller,
      (await this.deps.repo.viewRows(ids)).map((r) => ({ ...r, series_id: r.id })),
    );
    const byId = new Map((await this.views(caller, rows)).map((v) => [v.id, v]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async get(caller: Caller, id: string): Promise<SeriesView> {
    return (await this.views(caller, [await this.require(caller, id)]))[0]!;
  }

  /** Changes what PATCH /series/{id} may change (its sharing labels); the series as it is now. */
  async update(caller: Caller, id: string, changes: SeriesUpdate): Promise<SeriesView> {
    await this.require(caller, id);
    if (changes.sharing_labels !== undefined) await this.setSharingLabels(caller, id, changes.sharing_labels);
    return this.get(caller, id);
  }

  /** Sets the labels and records the change in the history (nothing when they are the same); undo comes back here. */
  async setSharingLabels(caller: Caller, id: string, labels: readonly string[], group?: HistoryGroup): Promise<void> {
    const before = (await this.deps.repo.sharingLabels([id])).get(id) ?? [];
    const after = normalizeLabels(labels);
    if (before.join('\0') === after.join('\0')) return;
    await this.deps.repo.setSharingLabels(id, after);
    await this.deps.labelsHistory(id, { before, after, userId: caller.user.id, ...(group ? { group } : {}) });
  }

  async books(
    caller: Caller,
    id: string,
    sort: { sort?: string; order?: SortDirection },
    page: PageRequest,
  ): Promise<{ total: number; data: BookView[] }> {
    await this.require(caller, id);
    return this.deps.booksService.list(caller, { ...sort, series_id: id }, page);
  }

  /** The cover chosen for the series, else its first book's. */
  async thumbnail(caller: Caller, id: string, accept: string | undefined): Promise<ImageLookup> {
    await this.require(caller, id);
    const chosen = await this.deps.chosenCover?.(id, accept);
    if (chosen) return chosen;
    const book = await this.deps.books.firstOfSeries(id);
    if (!book) throw notFound('Thumbnail', { reason: 'the series has no books' });
    return this.deps.covers.thumbnail(book, accept);
  }

  async markRead(
    caller: Caller,
    id: string,
    read: boolean,
    hint: DeviceHint,
    origin?: ProgressOrigin,
  ): Promise<{ series_id: string; books_updated: number }> {
    await this.require(caller, id);
    return this.deps.progress.markSeries(caller, id, read, hint, origin);
  }
}
