import { type Caller, inScope, relativeToLibrary, scopeFor } from '../../identity/index.js';
import { emptyScanCounters, type ScanCounters, type ScanMode } from '../../events/types.js';
import { conflict, notFound } from '../../http/errors.js';
import type { TaskQueue, TaskRow } from '../../tasks/queue.js';
import type { TaskWorker } from '../../tasks/worker.js';
import type { ScanRepository } from './scanner/repository.js';
import type { LibraryRepository } from '../repository.js';
import { parseScanningConfig } from '../schemas.js';
import type { LibraryScanControl } from '../service.js';
import { cancelTask, taskView, type TaskView } from '../../operations/index.js';
import type { ScanStatusView } from './schemas.js';
import { parseJsonColumn } from '../../db/json-column.js';

export const SCAN_TASK = 'scan_library';
export const scanKey = (libraryId: string) => `${SCAN_TASK}:${libraryId}`;

const ZERO: ScanCounters = emptyScanCounters();

/** A scan task's result; {} when absent, empty or unreadable. */
const parse = (text: string | null): Record<string, unknown> => parseJsonColumn<Record<string, unknown>>(text, {});

export function scanStatusOf(libraryId: string, task: TaskRow | undefined): ScanStatusView {
  if (!task) {
    return {
      library_id: libraryId,
      state: 'idle',
      task_id: null,
      mode: null,
      started_at: null,
      finished_at: null,
      error: null,
      counters: { ...ZERO },
      progress: { current: 0, total: 0, message: '' },
    };
  }
  const result = parse(task.result);
  const payload = parse(task.payload);
  const counters = Object.fromEntries(
    Object.keys(ZERO).map((k) => [k, typeof result[k] === 'number' ? (result[k] as number) : 0]),
  ) as unknown as ScanCounters;
  return {
    library_id: libraryId,
    state: task.status,
    task_id: task.id,
    mode: payload.mode === 'deep' ? 'deep' : 'normal',
    started_at: task.started_at,
    finished_at: task.finished_at,
    error: task.error,
    counters,
    progress: { current: task.progress_current, total: task.progress_total, message: task.progress_message ?? '' },
  };
}

/**
 * Scan control: one scan per library at a time (a second request while one is pending or running returns
 * that task, with 202 like the first); status from the latest scan task; cancel aborts the running scan.
 * Also queues re-analysis of books and series.
 */
export class ScanService implements LibraryScanControl {
  constructor(
    private readonly deps: { queue: TaskQueue; worker: TaskWorker; libraries: LibraryRepository; scanRepository: ScanRepository },
  ) {}

  async requestScan(libraryId: string, mode: ScanMode | undefined, reason: string): Promise<{ task: TaskView; created: boolean }> {
    const library = await this.deps.libraries.get(libraryId);
    if (!library) throw notFound('Library');
    const effective = mode ?? parseScanningConfig(library.scanning_config).default_mode ?? 'normal';
    const { task, created } = await this.deps.queue.enqueue({
      type: SCAN_TASK,
      libraryId,
      payload: { mode: effective, reason },
      activeKey: scanKey(libraryId),
      priority: 10,
    });
    return { task: taskView(task), created };
  }

  /**
   * Queues a scan of some folders of a library (folder watching): merged into a pending scan (of the whole
   * library, or of other folders), else a new task. `busy` when a scan is running: the caller asks again later,
   * since the running scan may have walked those folders before they changed.
   */
  async requestFolderScan(libraryId: string, folders: readonly string[], reason: string): Promise<'queued' | 'busy'> {
    const payload = { mode: 'normal', reason, ...(folders.includes('') ? {} : { paths: [...folders] }) };
    const { task, created } = await this.deps.queue.enqueue({
      type: SCAN_TASK,
      libraryId,
      payload,
      activeKey: scanKey(libraryId),
      priority: 10,
    });
    if (created) return 'queued';
    if (task.status !== 'pending') return 'busy';
    const queued = parse(task.payload);
    if (!Array.isArray(queued.paths)) return 'queued'; // the whole library is to be scanned anyway
    const merged = folders.includes('')
      ? { ...queued, paths: undefined }
      : { ...queued, paths: [...new Set([...(queued.paths as string[]), ...folders])] };
    return (await this.deps.queue.replacePendingPayload(task.id, merged)) ? 'queued' : 'busy';
  }

  async status(caller: Caller, libraryId: string): Promise<ScanStatusView> {
    const library = inScope(scopeFor(caller), libraryId) ? await this.deps.libraries.get(libraryId) : undefined;
    if (!library) throw notFound('Library');
    return this.forCaller(caller, scanStatusOf(libraryId, await this.deps.queue.latestForLibrary(SCAN_TASK, libraryId)), library.path);
  }

  /**
   * A scan's error and progress name files by their absolute path; those who do not manage libraries (who are not
   * shown where libraries live) read them relative to the library folder.
   */
  private forCaller(caller: Caller, view: ScanStatusView, root: string | undefined): ScanStatusView {
    if (caller.permissions.has('libraries-write')) return view;
    return {
      ...view,
      error: view.error === null ? null : relativeToLibrary(view.error, root),
      progress: { ...view.progress, message: relativeToLibrary(view.progress.message, root) },
    };
  }

  /** Cancels the library's pending or running scan; 409 when there is none. */
  async cancel(libraryId: string): Promise<ScanStatusView> {
    if (!(await this.deps.libraries.get(libraryId))) throw notFound('Library');
    const active = await this.deps.queue.findActiveByKey(scanKey(libraryId));
    if (!active) throw conflict('No scan of this library is pending or running');
    const row = await cancelTask(this.deps.queue, this.deps.worker, active.id);
    return scanStatusOf(libraryId, row ?? active);
  }

  async active(caller: Caller): Promise<ScanStatusView[]> {
    const scope = scopeFor(caller);
    const tasks = await this.deps.queue.active(SCAN_TASK);
    const visible = tasks.filter((t) => t.library_id !== null && inScope(scope, t.library_id));
    return Promise.all(
      visible.map(async (t) => {
        const library = caller.permissions.has('libraries-write') ? undefined : await this.deps.libraries.get(t.library_id ?? '');
        return this.forCaller(caller, scanStatusOf(t.library_id ?? '', t), library?.path);
      }),
    );
  }

  async cancelLibraryScans(libraryId: string): Promise<void> {
    for (const task of await this.deps.queue.active(undefined, libraryId)) {
      await cancelTask(this.deps.queue, this.deps.worker, task.id);
    }
  }

  async analyzeBook(bookId: string): Promise<TaskView> {
    const book = await this.deps.scanRepository.book(bookId);
    if (!book || book.deleted_at !== null) throw notFound('Book');
    const { task } = await this.deps.queue.enqueue({
      type: 'analyze_book',
      libraryId: book.library_id,
      targetId: book.id,
      payload: { book_id: book.id },
      activeKey: `analyze_book:${book.id}`,
    });
    return taskView(task);
  }

  /** Queues a `purge_deleted` task for a library (the caller checked that it exists). */
  async requestPurge(libraryId: string): Promise<TaskView> {
    const { task } = await this.deps.queue.enqueue({
      type: 'purge_deleted',
      libraryId,
      targetId: libraryId,
      payload: { library_id: libraryId },
      activeKey: `purge_deleted:${libraryId}`,
    });
    return taskView(task);
  }

  async analyzeSeries(seriesId: string): Promise<TaskView> {
    const series = await this.deps.scanRepository.series(seriesId);
    if (!series || series.deleted_at !== null) throw notFound('Series');
    const { task } = await this.deps.queue.enqueue({
      type: 'analyze_series',
      libraryId: series.library_id,
      targetId: series.id,
      payload: { series_id: series.id },
      activeKey: `analyze_series:${series.id}`,
    });
    return taskView(task);
  }
}
