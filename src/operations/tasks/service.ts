import { type Caller, inScope, scopeFor, withLibraryRelativePaths } from '../../identity/index.js';
import { conflict, notFound } from '../../http/errors.js';
import { TASK_STATUSES, type TaskFilter, type TaskQueue, type TaskRow } from '../../tasks/queue.js';
import type { TaskWorker } from '../../tasks/worker.js';
import { taskView, type TaskStats, type TaskView } from './schemas.js';

/** How long a cancel waits for a task running in this process to stop before answering. */
const CANCEL_WAIT_MS = 2000;

/** Cancels a task and waits (briefly) for the local worker to stop it; returns the row afterwards. */
export async function cancelTask(queue: TaskQueue, worker: TaskWorker, id: string): Promise<TaskRow | undefined> {
  const row = await queue.requestCancel(id);
  if (row?.status === 'running' && worker.cancelLocal(id)) {
    await Promise.race([worker.settled(id), new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref())]);
    return queue.get(id);
  }
  return row;
}

export class TaskService {
  constructor(
    private readonly queue: TaskQueue,
    private readonly worker: TaskWorker,
    /** A library's folder, for telling task outcomes relative to it to those who are not shown it. */
    private readonly libraryRoot: (libraryId: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** Errors, results and progress name files by absolute path: relative to the library below libraries-write. */
  private async views(caller: Caller, rows: readonly TaskRow[]): Promise<TaskView[]> {
    const views = rows.map(taskView);
    if (caller.permissions.has('libraries-write')) return views;
    return Promise.all(views.map(async (v) => (v.library_id ? withLibraryRelativePaths(v, await this.libraryRoot(v.library_id)) : v)));
  }

  /** A restricted caller sees the tasks of its libraries and those of none (docs/household-access.md). */
  async list(caller: Caller, filter: TaskFilter, offset: number, limit: number): Promise<{ total: number; data: TaskView[] }> {
    const scope = scopeFor(caller);
    const withinLibraries = scope.all ? null : scope.libraryIds;
    const { total, rows } = await this.queue.list({ ...filter, withinLibraries }, offset, limit);
    return { total, data: await this.views(caller, rows) };
  }

  async get(caller: Caller, id: string): Promise<TaskView> {
    const row = await this.queue.get(id);
    if (!row || (row.library_id !== null && !inScope(scopeFor(caller), row.library_id))) throw notFound('Task');
    return (await this.views(caller, [row]))[0]!;
  }

  /** A pending task is cancelled at once; a running one is stopped (its work aborted) within about 2 s. */
  async cancel(caller: Caller, id: string): Promise<TaskView> {
    const before = await this.queue.get(id);
    if (!before || (before.library_id !== null && !inScope(scopeFor(caller), before.library_id))) throw notFound('Task');
    if (before.status !== 'pending' && before.status !== 'running')
      throw conflict(`Task is already ${before.status}`, { status: before.status });
    const row = await cancelTask(this.queue, this.worker, id);
    return (await this.views(caller, [row ?? before]))[0]!;
  }

  async stats(): Promise<TaskStats> {
    const rows = await this.queue.stats();
    const zero = () => Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<string, number>;
    const byStatus = zero();
    const byType = new Map<
      string,
      { task_type: string; total: number; by_status: Record<string, number>; weighted: number; completed: number }
    >();
    let weighted = 0;
    let completed = 0;
    for (const r of rows) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
      const entry = byType.get(r.type) ?? { task_type: r.type, total: 0, by_status: zero(), weighted: 0, completed: 0 };
      entry.total += r.count;
      entry.by_status[r.status] = (entry.by_status[r.status] ?? 0) + r.count;
      if (r.status === 'completed' && r.average_duration_ms !== null) {
        entry.weighted += r.average_duration_ms * r.count;
        entry.completed += r.count;
        weighted += r.average_duration_ms * r.count;
        completed += r.count;
      }
      byType.set(r.type, entry);
    }
    return {
      total: rows.reduce((n, r) => n + r.count, 0),
      by_status: byStatus,
      by_type: [...byType.values()]
        .sort((a, b) => a.task_type.localeCompare(b.task_type))
        .map((e) => ({
          task_type: e.task_type,
          total: e.total,
          by_status: e.by_status,
          average_duration_ms: e.completed ? Math.round(e.weighted / e.completed) : null,
        })),
      average_duration_ms: completed ? Math.round(weighted / completed) : null,
    };
  }
}
