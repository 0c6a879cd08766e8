import { type Caller, type InSeries, scopeFor } from '../../identity/index.js';
import { notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import type { TaskProgressUpdate, TaskQueue, TaskRow } from '../../tasks/queue.js';
import { normalizeTitle } from './normalize-title.js';
import type { DuplicatesRepository, FoundGroup, GroupRow } from './repository.js';

export type SeriesMatchType = 'external_id' | 'title';

export interface BookGroupView {
  id: string;
  match_type: 'hash';
  hash: string;
  book_count: number;
  total_size: number;
  books: Array<{
    book_id: string;
    title: string;
    path: string;
    size: number;
    series: { id: string; name: string };
    library: { id: string; name: string };
  }>;
  created_at: string;
  updated_at: string;
}

export interface SeriesGroupView {
  id: string;
  match_type: SeriesMatchType;
  match_key: string;
  confidence: 'high' | 'possible';
  library_id: string | null;
  series: Array<{ series_id: string; name: string; library: { id: string; name: string }; book_count: number; last_updated: string }>;
  created_at: string;
  updated_at: string;
}

export interface DetectionResult {
  book_groups: number;
  series_external_id_groups: number;
  series_title_groups: number;
}

const TASK_TYPE = 'detect_duplicates';

/** Of rows fetched in bulk, those the caller sees (AccessService.visible). */
export type VisibleRows = <Row extends InSeries>(caller: Caller, rows: readonly Row[]) => Promise<Row[]>;

/** Groups read at once for a restricted caller, who gets them filtered and paged here. */
const ALL_GROUPS = 100_000;

export class DuplicatesService {
  constructor(
    private readonly repo: DuplicatesRepository,
    private readonly queue: TaskQueue,
    private readonly visible: VisibleRows,
  ) {}

  /** One task covering book and series detection; a scan already queued or running is returned instead. */
  async requestScan(): Promise<TaskRow> {
    const { task } = await this.queue.enqueue({ type: TASK_TYPE, activeKey: TASK_TYPE, maxAttempts: 1 });
    return task;
  }

  /** The task handler: recomputes every group from the catalog as it is now. */
  async detect(signal: AbortSignal, progress: (update: TaskProgressUpdate) => void): Promise<DetectionResult> {
    progress({ current: 0, total: 3, message: 'Books with the same content' });
    const books = await this.repo.bookHashGroups();
    signal.throwIfAborted();
    await this.repo.syncGroups('book', 'hash', books);

    progress({ current: 1, total: 3, message: 'Series with the same external id' });
    const external = await this.repo.externalIdGroups();
    signal.throwIfAborted();
    await this.repo.syncGroups('series', 'external_id', external);

    progress({ current: 2, total: 3, message: 'Series with the same title in one library' });
    const titles = titleGroups(await this.repo.presentSeries());
    signal.throwIfAborted();
    await this.repo.syncGroups('series', 'title', titles);

    progress({ current: 3, total: 3, message: 'Done' });
    return { book_groups: books.length, series_external_id_groups: external.length, series_title_groups: titles.length };
  }

  /**
   * A group shows only what the caller sees: for a restricted caller, members it does not see are left out, and
   * so is a group with fewer than two members left (a copy it cannot see is nothing it can act on).
   */
  async bookGroups(caller: Caller, page: PageRequest): Promise<{ items: BookGroupView[]; total: number }> {
    const restricted = !scopeFor(caller).all;
    const { rows, total } = await this.repo.listGroups(
      'book',
      'hash',
      restricted ? 0 : page.offset,
      restricted ? ALL_GROUPS : page.pageSize,
    );
    const members = await this.visible(caller, await this.repo.bookMembers(rows.map((r) => r.id)));
    const items = rows.map((g) => {
      const books = members.filter((m) => m.group_id === g.id);
      return {
        id: g.id,
        match_type: 'hash' as const,
        hash: g.match_key,
        book_count: books.length,
        total_size: books.reduce((sum, b) => sum + b.size, 0),
        books: books.map((b) => ({
          book_id: b.book_id,
          title: b.title,
          path: b.path,
          size: b.size,
          series: { id: b.series_id, name: b.series_name },
          library: { id: b.library_id, name: b.library_name },
        })),
        created_at: g.created_at,
        updated_at: g.updated_at,
      };
    });
    return restricted ? pageOf(items, page) : { items, total };
  }

  async seriesGroups(
    caller: Caller,
    matchType: SeriesMatchType | undefined,
    page: PageRequest,
  ): Promise<{ items: SeriesGroupView[]; total: number }> {
    const restricted = !scopeFor(caller).all;
    const { rows, total } = await this.repo.listGroups(
      'series',
      matchType,
      restricted ? 0 : page.offset,
      restricted ? ALL_GROUPS : page.pageSize,
    );
    const all = await this.repo.seriesMembers(rows.map((r) => r.id));
    const members = await this.visible(caller, all);
    const items = rows.map((g) =>
      this.seriesView(
        g,
        members.filter((m) => m.group_id === g.id),
      ),
    );
    return restricted ? pageOf(items, page) : { items, total };
  }

  async deleteBookGroup(id: string): Promise<void> {
    if (!(await this.repo.deleteGroup('book', id))) throw notFound('Duplicate group');
  }

  async deleteSeriesGroup(id: string): Promise<void> {
    if (!(await this.repo.deleteGroup('series', id))) throw notFound('Duplicate series group');
  }

  private seriesView(g: GroupRow, members: Awaited<ReturnType<DuplicatesRepository['seriesMembers']>>): SeriesGroupView {
    const matchType = g.match_type as SeriesMatchType;
    return {
      id: g.id,
      match_type: matchType,
      match_key: matchType === 'title' ? g.match_key.slice(g.match_key.indexOf(':') + 1) : g.match_key,
      confidence: matchType === 'external_id' ? 'high' : 'possible',
      library_id: g.library_id,
      series: members.map((m) => ({
        series_id: m.series_id,
        name: m.name,
        library: { id: m.library_id, name: m.library_name },
        book_count: m.book_count,
        last_updated: m.updated_at,
      })),
      created_at: g.created_at,
      updated_at: g.updated_at,
    };
  }
}

/** Same normalised title within one library (a title match never crosses libraries). */
export function titleGroups(series: Array<{ id: string; library_id: string; name: string; title: string | null }>): FoundGroup[] {
  const groups = new Map<string, FoundGroup>();
  for (const s of series) {
    const normalized = normalizeTitle(s.title ?? s.name);
    if (!normalized) continue;
    const key = `${s.library_id}:${normalized}`;
    const group = groups.get(key) ?? { key, libraryId: s.library_id, members: [] };
    group.members.push(s.id);
    groups.set(key, group);
  }
  return [...groups.values()].filter((g) => g.members.length > 1);
}

/** A restricted caller's groups: those with at least two members it sees, paged here. */
function pageOf<G extends { books?: unknown[]; series?: unknown[] }>(groups: G[], page: PageRequest): { items: G[]; total: number } {
  const shown = groups.filter((g) => (g.books ?? g.series ?? []).length >= 2);
  return { items: shown.slice(page.offset, page.offset + page.pageSize), total: shown.length };
}
