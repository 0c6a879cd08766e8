import { sql, type Selectable } from 'kysely';
import type { Database } from '../db/connection.js';
import { newId, nowIso } from '../db/ids.js';
import { toJsonColumn } from '../db/json-column.js';
import type { TaskStatus, TasksTable } from '../db/tables/tasks.js';

export type TaskRow = Selectable<TasksTable>;

export const TASK_STATUSES: readonly TaskStatus[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];
export const ACTIVE_STATUSES: readonly TaskStatus[] = ['pending', 'running'];

export interface EnqueueInput {
  type: string;
  libraryId?: string | null;
  targetId?: string | null;
  payload?: unknown;
  priority?: number;
  /** At most one pending or running task holds a key; enqueueing again returns that task. */
  activeKey?: string | null;
  maxAttempts?: number;
}

export interface TaskFilter {
  status?: TaskStatus;
  type?: string;
  libraryId?: string;
  /** Only tasks of these libraries, or of none (a restricted caller's); undefined or null: every task. */
  withinLibraries?: readonly string[] | null;
}

export interface TaskProgressUpdate {
  current: number;
  total: number;
  message?: string | null;
  /** Live details kept in `result` while running (scan counters). */
  details?: unknown;
}

export interface TaskTypeStats {
  type: string;
  status: TaskStatus;
  count: number;
  average_duration_ms: number | null;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The durable task queue: every state change is one guarded UPDATE, so several workers (threads of this
 * process, or other processes on PostgreSQL) never run the same task twice. Pending tasks are claimed with
 * `FOR UPDATE SKIP LOCKED` on PostgreSQL and with an UPDATE guarded by `status = 'pending'` on SQLite
 * (SQLite serialises writers, so the guard is enough).
 */
export class TaskQueue {
  private readonly enqueueListeners = new Set<(task: TaskRow) => void>();

  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Called after every new task (the local worker wakes up instead of waiting for its poll). */
  onEnqueue(listener: (task: TaskRow) => void): () => void {
    this.enqueueListeners.add(listener);
    return () => this.enqueueListeners.delete(listener);
  }

  /** Creates a pending task, or returns the active task that holds the same `activeKey` (`created: false`). */
  async enqueue(input: EnqueueInput): Promise<{ task: TaskRow; created: boolean }> {
    const now = nowIso();
    const row: TaskRow = {
      id: newId(),
      type: input.type,
      status: 'pending',
      priority: input.priority ?? 0,
      library_id: input.libraryId ?? null,
      target_id: input.targetId ?? null,
      payload: toJsonColumn(input.payload ?? {}),
      active_key: input.activeKey ?? null,
      progress_current: 0,
      progress_total: 0,
      progress_message: null,
      result: null,
      error: null,
      attempts: 0,
      max_attempts: input.maxAttempts ?? 3,
      cancel_requested: 0,
      worker_id: null,
      heartbeat_at: null,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    if (input.activeKey) {
      const existing = await this.findActiveByKey(input.activeKey);
      if (existing) return { task: existing, created: false };
    }
    try {
      await this.db.insertInto('tasks').values(row).execute();
    } catch (err) {
      if (input.activeKey && isUniqueViolation(err)) {
        const existing = await this.findActiveByKey(input.activeKey);
        if (existing) return { task: existing, created: false };
      }
      throw err;
    }
    for (const listener of this.enqueueListeners) listener(row);
    return { task: row, created: true };
  }

  /** Replaces a task's payload while it is still pending (a queued scan given more folders); false once it started. */
  async replacePendingPayload(id: string, payload: unknown): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({ payload: toJsonColumn(payload), updated_at: nowIso() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  findActiveByKey(key: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('active_key', '=', key).executeTakeFirst();
  }

  get(id: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Claims up to `limit` pending tasks of the given types for `workerId`, highest priority then oldest first. */
  async claim(workerId: string, types: readonly string[], limit: number): Promise<TaskRow[]> {
    if (types.length === 0 || limit <= 0) return [];
    const now = nowIso();
    const claimed = {
      status: 'running' as const,
      worker_id: workerId,
      started_at: now,
      heartbeat_at: now,
      updated_at: now,
      attempts: sql<number>`attempts + 1`,
    };
    const candidates = this.db
      .selectFrom('tasks')
      .select('id')
      .where('status', '=', 'pending')
      .where('type', 'in', [...types])
      .orderBy('priority', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    // One statement: SQLite runs it as a single write (writers are serialised), PostgreSQL skips rows
    // another transaction is claiming instead of waiting for them.
    // On PostgreSQL the LIMIT must run once: `id IN (subquery)` may be re-evaluated per row and overshoot it,
    // so the candidates go through a materialised CTE.
    if (this.database.dialect === 'postgres') {
      return this.db
        .with(
          (cte) => cte('picked').materialized(),
          () => candidates.forUpdate().skipLocked(),
        )
        .updateTable('tasks')
        .set(claimed)
        .from('picked')
        .whereRef('tasks.id', '=', 'picked.id')
        .where('tasks.status', '=', 'pending')
        .returningAll('tasks')
        .execute();
    }
    return this.db.updateTable('tasks').set(claimed).where('id', 'in', candidates).where('status', '=', 'pending').returningAll().execute();
  }

  /** Records progress of a task this worker runs. */
  async progress(id: string, workerId: string, update: TaskProgressUpdate): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({
        progress_current: Math.round(update.current),
        progress_total: Math.round(update.total),
        progress_message: update.message ?? null,
        ...(update.details !== undefined ? { result: toJsonColumn(update.details) } : {}),
        updated_at: nowIso(),
      })
      .where('id', '=', id)
      .where('worker_id', '=', workerId)
      .where('status', '=', 'running')
      .execute();
  }

  /** Ends a running task of this worker; returns the final row, or undefined when the task was taken away. */
  async finish(
    id: string,
    workerId: string,
    status: Extract<TaskStatus, 'completed' | 'failed' | 'cancelled'>,
    outcome: { result?: unknown; error?: string | null; progress?: TaskProgressUpdate },
  ): Promise<TaskRow | undefined> {
    const now = nowIso();
    return this.db
      .updateTable('tasks')
      .set({
        status,
        active_key: null,
        finished_at: now,
        updated_at: now,
        error: outcome.error ?? null,
        ...(outcome.result !== undefined ? { result: toJsonColumn(outcome.result) } : {}),
        ...(outcome.progress
          ? {
              progress_current: Math.round(outcome.progress.current),
              progress_total: Math.round(outcome.progress.total),
              progress_message: outcome.progress.message ?? null,
            }
          : {}),
      })
      .where('id', '=', id)
      .where('worker_id', '=', workerId)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Puts a running task of this worker back in the queue. At shutdown the run does not count as an attempt; after
   * the database went away under it, it does (so a task that keeps breaking the connection ends failed).
   */
  release(id: string, workerId: string, reason: 'shutdown' | 'database_unavailable' = 'shutdown'): Promise<TaskRow | undefined> {
    const requeue =
      reason === 'shutdown'
        ? { attempts: sql<number>`attempts - 1`, progress_message: 'Re-queued at shutdown' }
        : { progress_message: 'Re-queued: the database was unreachable' };
    return this.db
      .updateTable('tasks')
      .set({ status: 'pending', worker_id: null, heartbeat_at: null, updated_at: nowIso(), ...requeue })
      .where('id', '=', id)
      .where('worker_id', '=', workerId)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Cancels a task: a pending one ends `cancelled` at once; a running one is flagged, and the worker that
   * runs it aborts the work and ends it `cancelled`. Returns the row after the change.
   */
  async requestCancel(id: string): Promise<TaskRow | undefined> {
    const now = nowIso();
    const pending = await this.db
      .updateTable('tasks')
      .set({ status: 'cancelled', cancel_requested: 1, active_key: null, finished_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (pending) return pending;
    await this.db
      .updateTable('tasks')
      .set({ cancel_requested: 1, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
    return this.get(id);
  }

  /** Says the worker is alive for its running tasks; returns the ids someone asked to cancel. */
  async heartbeat(workerId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    await this.db
      .updateTable('tasks')
      .set({ heartbeat_at: nowIso() })
      .where('id', 'in', [...ids])
      .where('worker_id', '=', workerId)
      .where('status', '=', 'running')
      .execute();
    const rows = await this.db
      .selectFrom('tasks')
      .select('id')
      .where('id', 'in', [...ids])
      .where('cancel_requested', '=', 1)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Tasks left `running` by a process that died: re-queued while attempts remain, else failed (or cancelled
   * when a cancel was asked). `staleBefore` selects by last heartbeat; `everyRunning` takes all running tasks
   * not owned by `exceptWorker` (SQLite: a single process owns the database, so at start nothing else runs).
   */
  async recoverAbandoned(options: { staleBefore: string; everyRunning?: boolean; exceptWorker?: string }): Promise<TaskRow[]> {
    let query = this.db.selectFrom('tasks').selectAll().where('status', '=', 'running');
    if (options.exceptWorker)
      query = query.where((eb) => eb.or([eb('worker_id', 'is', null), eb('worker_id', '!=', options.exceptWorker!)]));
    if (!options.everyRunning)
      query = query.where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', options.staleBefore)]));
    const stale = await query.execute();
    const recovered: TaskRow[] = [];
    for (const task of stale) {
      const now = nowIso();
      const retry = task.cancel_requested === 0 && task.attempts < task.max_attempts;
      const update = retry
        ? {
            status: 'pending' as const,
            worker_id: null,
            heartbeat_at: null,
            updated_at: now,
            progress_message: 'Re-queued after an interrupted run',
          }
        : {
            status: task.cancel_requested ? ('cancelled' as const) : ('failed' as const),
            active_key: null,
            finished_at: now,
            updated_at: now,
            error: task.cancel_requested
              ? null
              : `Interrupted: the process running it stopped (attempt ${task.attempts} of ${task.max_attempts})`,
          };
      const row = await this.db
        .updateTable('tasks')
        .set(update)
        .where('id', '=', task.id)
        .where('status', '=', 'running')
        .where('updated_at', '=', task.updated_at)
        .returningAll()
        .executeTakeFirst();
      if (row) recovered.push(row);
    }
    return recovered;
  }

  async list(filter: TaskFilter, offset: number, limit: number): Promise<{ total: number; rows: TaskRow[] }> {
    let base = this.db.selectFrom('tasks');
    if (filter.status) base = base.where('status', '=', filter.status);
    if (filter.type) base = base.where('type', '=', filter.type);
    if (filter.libraryId) base = base.where('library_id', '=', filter.libraryId);
    const within = filter.withinLibraries;
    if (within)
      base = base.where((eb) =>
        within.length > 0 ? eb.or([eb('library_id', 'is', null), eb('library_id', 'in', [...within])]) : eb('library_id', 'is', null),
      );
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  /** The latest task of a type for a library (running or finished). */
  latestForLibrary(type: string, libraryId: string): Promise<TaskRow | undefined> {
    return this.db
      .selectFrom('tasks')
      .selectAll()
      .where('type', '=', type)
      .where('library_id', '=', libraryId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  active(type?: string, libraryId?: string): Promise<TaskRow[]> {
    let q = this.db
      .selectFrom('tasks')
      .selectAll()
      .where('status', 'in', [...ACTIVE_STATUSES]);
    if (type) q = q.where('type', '=', type);
    if (libraryId) q = q.where('library_id', '=', libraryId);
    return q.orderBy('created_at').orderBy('id').execute();
  }

  /** Counts by type and status, with the mean run time of finished tasks. */
  async stats(): Promise<TaskTypeStats[]> {
    const duration =
      this.database.dialect === 'postgres'
        ? sql<number | null>`avg(extract(epoch from (finished_at::timestamptz - started_at::timestamptz)) * 1000)`
        : sql<number | null>`avg((julianday(finished_at) - julianday(started_at)) * 86400000.0)`;
    const rows = await this.db
      .selectFrom('tasks')
      .select(['type', 'status'])
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .select(duration.as('average_duration_ms'))
      .groupBy(['type', 'status'])
      .execute();
    return rows.map((r) => ({
      type: r.type,
      status: r.status,
      count: Number(r.count),
      average_duration_ms: r.average_duration_ms === null ? null : Math.round(Number(r.average_duration_ms)),
    }));
  }

  /** Removes finished tasks (completed, failed, cancelled) that ended before the cutoff; returns how many. */
  async pruneFinished(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom('tasks')
      .where('status', 'in', ['completed', 'failed', 'cancelled'])
      .where('finished_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
