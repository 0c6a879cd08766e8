import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { EventBus } from '../events/bus.js';
import type { TaskProgressUpdate, TaskQueue, TaskRow } from './queue.js';
import { parseJsonColumn } from '../db/json-column.js';

export interface TaskContext {
  task: TaskRow;
  /** The parsed payload. */
  payload: unknown;
  /** Aborted when the task is cancelled or the worker stops: handlers pass it to everything long. */
  signal: AbortSignal;
  /** Reports progress (stored at most every `progressWriteMs`, published to the bus every time). */
  progress(update: TaskProgressUpdate): void;
}

/** Does the work of one task type; the resolved value becomes the task's `result`. */
export type TaskHandler = (ctx: TaskContext) => Promise<unknown>;

export interface WorkerOptions {
  concurrency: number;
  pollIntervalMs: number;
  /** How often this worker says it is alive and checks for cancel requests of its tasks. */
  heartbeatMs?: number;
  /** A running task whose heartbeat is older than this belongs to a dead process. */
  staleAfterMs?: number;
  /** At start, take back every running task (SQLite: one process owns the database). */
  recoverAllOnStart?: boolean;
  progressWriteMs?: number;
  logger?: FastifyBaseLogger;
  /**
   * Told when this worker's first task starts (true), and when none has run for `idleAfterMs` (false): tasks that
   * follow each other (a scan, then the cover task it queues) make one busy period, not one per task.
   */
  onBusyChange?: (busy: boolean) => void;
  /**
   * Task types that leave the worker idle for `onBusyChange`: they hold little memory (identification waits on the
   * network and scores small lists), and the tighter heap a busy worker gets would cost readers' pages their speed.
   */
  lightTypes?: readonly string[];
  /** Default 1000. */
  idleAfterMs?: number;
  /** Told when claiming work finds the database unreachable (an outage is logged once, not at every poll). */
  onDatabaseUnavailable?: (err: unknown) => void;
}

interface RunningTask {
  task: TaskRow;
  controller: AbortController;
  done: Promise<void>;
}

/** The error a handler throws (or the signal reason) when it stopped because of a cancel. */
export class TaskCancelledError extends Error {
  constructor() {
    super('Task cancelled');
    this.name = 'AbortError';
  }
}

/**
 * Runs queued tasks with bounded concurrency using the handlers registered for their types (the worker knows
 * no feature: app.ts registers `scan_library` and the others). A task is cancelled by aborting its signal:
 * locally at once through `cancelLocal`, from another process through the flag the heartbeat reads.
 */
export class TaskWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly handlers = new Map<string, TaskHandler>();
  private readonly running = new Map<string, RunningTask>();
  private started = false;
  private stopping = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | null = null;
  private refill = false;
  private beats = 0;
  /** What onBusyChange was last told, and the pending "idle" while no task runs. */
  private busy = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Aborted by stop(): ends the waits between attempts to record a task's end. */
  private stopSignal = new AbortController();

  constructor(
    private readonly queue: TaskQueue,
    private readonly bus: EventBus,
    private readonly options: WorkerOptions,
  ) {}

  register(type: string, handler: TaskHandler): void {
    this.handlers.set(type, handler);
  }

  types(): string[] {
    return [...this.handlers.keys()];
  }

  isStarted(): boolean {
    return this.started;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.stopSignal = new AbortController();
    await this.recover(this.options.recoverAllOnStart ?? false);
    this.unsubscribe = this.queue.onEnqueue(() => this.wake());
    const heartbeatMs = this.options.heartbeatMs ?? 1000;
    this.heartbeatTimer = setInterval(() => void this.beat(), heartbeatMs);
    this.heartbeatTimer.unref();
    this.schedulePoll(0);
  }

  /** Aborts running tasks and waits for them to settle. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.stopSignal.abort();
    this.unsubscribe?.();
    clearTimeout(this.pollTimer);
    clearInterval(this.heartbeatTimer);
    for (const run of this.running.values()) run.controller.abort(new TaskCancelledError());
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.filling?.catch(() => undefined);
    // Stopped is idle now, not after the delay (the timer would not keep the process alive to say it).
    clearTimeout(this.idleTimer);
    this.setBusy(false);
    this.started = false;
  }

  /** Looks for work now instead of at the next poll. */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = this.fill()
      .catch((err: unknown) => {
        // The database comes back by itself; the next poll claims again.
        if (isDatabaseUnavailable(err)) {
          if (this.options.onDatabaseUnavailable) this.options.onDatabaseUnavailable(err);
          else this.options.logger?.warn({ err }, 'task worker: database unreachable; claiming again at the next poll');
        } else this.options.logger?.error({ err }, 'task worker: claiming failed');
      })
      .finally(() => {
        this.filling = null;
        if (this.refill) {
          this.refill = false;
          this.wake();
        }
      });
  }

  /** Aborts a task this process runs; false when it runs elsewhere (the heartbeat will see the flag). */
  cancelLocal(taskId: string): boolean {
    const run = this.running.get(taskId);
    if (!run) return false;
    run.controller.abort(new TaskCancelledError());
    return true;
  }

  /** Resolves when the task, if it runs here, has settled. */
  async settled(taskId: string): Promise<void> {
    await this.running.get(taskId)?.done;
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  private schedulePoll(delay: number): void {
    clearTimeout(this.pollTimer);
    if (this.stopping) return;
    this.pollTimer = setTimeout(() => {
      this.wake();
      this.schedulePoll(this.options.pollIntervalMs);
    }, delay);
    this.pollTimer.unref();
  }

  private async recover(everyRunning: boolean): Promise<void> {
    const staleAfter = this.options.staleAfterMs ?? 30_000;
    const recovered = await this.queue.recoverAbandoned({
      staleBefore: new Date(Date.now() - staleAfter).toISOString(),
      everyRunning,
      exceptWorker: this.id,
    });
    for (const task of recovered) {
      this.options.logger?.warn(
        { taskId: task.id, type: task.type, status: task.status },
        'recovered a task left running by a stopped process',
      );
      this.publish(task);
    }
  }

  private async fill(): Promise<void> {
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) return;
      const claimed = await this.queue.claim(this.id, this.types(), free);
      if (claimed.length === 0) return;
      for (const task of claimed) this.run(task);
    }
  }

  private run(task: TaskRow): void {
    const controller = new AbortController();
    const handler = this.handlers.get(task.type);
    const entry: RunningTask = { task, controller, done: Promise.resolve() };
    if (!this.isLight(task)) {
      clearTimeout(this.idleTimer);
      this.setBusy(true);
    }
    this.running.set(task.id, entry);
    entry.done = this.execute(task, handler, controller)
      .catch((err: unknown) => this.options.logger?.error({ err, taskId: task.id }, 'task worker: running a task failed'))
      .finally(() => {
        this.running.delete(task.id);
        if (this.heavyRunning() === 0 && this.busy) this.idleSoon();
        this.wake();
      });
    // A cancel asked between claim and start still counts.
    if (task.cancel_requested) controller.abort(new TaskCancelledError());
  }

  private isLight(task: TaskRow): boolean {
    return this.options.lightTypes?.includes(task.type) ?? false;
  }

  /** Running tasks that make the worker busy (all but the light ones). */
  private heavyRunning(): number {
    let n = 0;
    for (const entry of this.running.values()) if (!this.isLight(entry.task)) n += 1;
    return n;
  }

  private setBusy(busy: boolean): void {
    if (this.busy === busy) return;
    this.busy = busy;
    this.options.onBusyChange?.(busy);
  }

  /** Idle unless a task starts within `idleAfterMs` (the next one is usually claimed at once). */
  private idleSoon(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.heavyRunning() === 0) this.setBusy(false);
    }, this.options.idleAfterMs ?? 1000);
    this.idleTimer.unref();
  }

  private async execute(task: TaskRow, handler: TaskHandler | undefined, controller: AbortController): Promise<void> {
    let last: TaskProgressUpdate = { current: task.progress_current, total: task.progress_total, message: task.progress_message };
    let lastWrite = 0;
    let pendingWrite: Promise<void> = Promise.resolve();
    const writeEvery = this.options.progressWriteMs ?? 500;
    this.publish(task);
    const ctx: TaskContext = {
      task,
      payload: safeParse(task.payload),
      signal: controller.signal,
      progress: (update) => {
        last = update;
        this.publish({
          ...task,
          status: 'running',
          progress_current: update.current,
          progress_total: update.total,
          progress_message: update.message ?? null,
        });
        const now = Date.now();
        if (now - lastWrite >= writeEvery) {
          lastWrite = now;
          pendingWrite = pendingWrite
            .then(() => this.queue.progress(task.id, this.id, update))
            .catch((err: unknown) => this.options.logger?.warn({ err, taskId: task.id }, 'could not store task progress'));
        }
      },
    };
    let ending: () => Promise<TaskRow | undefined>;
    try {
      if (!handler) throw new Error(`No handler for task type ${task.type}`);
      const result = await handler(ctx);
      ending = () => this.queue.finish(task.id, this.id, 'completed', { result: result ?? null, progress: completedProgress(last) });
    } catch (err) {
      if (controller.signal.aborted) {
        // Stopping the process is not a cancel: the task goes back to the queue for the next start.
        ending = async () =>
          this.stopping && !(await this.cancelWasAsked(task.id))
            ? this.queue.release(task.id, this.id)
            : this.queue.finish(task.id, this.id, 'cancelled', { progress: last, ...liveDetails(last) });
      } else if (isDatabaseUnavailable(err) && task.attempts < task.max_attempts) {
        // Not the task's fault: it runs again once the database is back (the attempt counts, so it cannot loop forever).
        this.options.logger?.warn({ err, taskId: task.id, type: task.type }, 'task interrupted: the database is unreachable; re-queued');
        ending = () => this.queue.release(task.id, this.id, 'database_unavailable');
      } else {
        const message = err instanceof Error ? err.message : String(err);
        this.options.logger?.error({ err, taskId: task.id, type: task.type }, 'task failed');
        ending = () => this.queue.finish(task.id, this.id, 'failed', { error: message, progress: last, ...liveDetails(last) });
      }
    }
    await pendingWrite;
    const final = await this.record(task, ending);
    if (final) this.publish(final);
  }

  /**
   * Stores how a task ended. While the database is unreachable it tries again, with growing waits, until it
   * answers or the worker stops; a task whose end could not be stored stays `running` without heartbeat and is
   * recovered as abandoned (by another instance after 30 s, or by this one at its next start).
   */
  private async record(task: TaskRow, write: () => Promise<TaskRow | undefined>): Promise<TaskRow | undefined> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await write();
      } catch (err) {
        if (this.stopping || !isDatabaseUnavailable(err)) {
          this.options.logger?.error({ err, taskId: task.id }, 'could not record how the task ended; it will be recovered as abandoned');
          return undefined;
        }
        const delay = Math.min(30_000, Math.max(100, this.options.pollIntervalMs) * 2 ** Math.min(attempt, 10));
        this.options.logger?.warn(
          { err, taskId: task.id, retryInMs: delay },
          'database unreachable: recording how the task ended when it is back',
        );
        await sleep(delay, undefined, { signal: this.stopSignal.signal }).catch(() => undefined);
      }
    }
  }

  private async cancelWasAsked(id: string): Promise<boolean> {
    const row = await this.queue.get(id);
    return row?.cancel_requested === 1;
  }

  private async beat(): Promise<void> {
    if (this.stopping) return;
    try {
      const ids = this.runningIds();
      const cancel = await this.queue.heartbeat(this.id, ids);
      for (const id of cancel) this.cancelLocal(id);
      if (++this.beats % 10 === 0) await this.recover(false);
    } catch (err) {
      this.options.logger?.warn({ err }, 'task worker heartbeat failed');
    }
  }

  private publish(task: TaskRow): void {
    this.bus.publish('task_progress', {
      task_id: task.id,
      task_type: task.type,
      library_id: task.library_id,
      status: task.status,
      progress: { current: task.progress_current, total: task.progress_total, message: task.progress_message ?? '' },
    });
  }
}

/** A task's payload; {} when unreadable. */
const safeParse = (text: string): unknown => parseJsonColumn<unknown>(text, {});

function completedProgress(last: TaskProgressUpdate): TaskProgressUpdate {
  return { ...last, current: last.total > 0 ? last.total : last.current, message: last.message ?? 'Done' };
}

function liveDetails(last: TaskProgressUpdate): { result?: unknown } {
  return last.details !== undefined ? { result: last.details } : {};
}
