import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../src/db/ids.js';
import { EventBus } from '../../src/events/bus.js';
import { tightHeapGrowthWhileBusy } from '../../src/tasks/heap-growth.js';
import { TaskQueue } from '../../src/tasks/queue.js';
import { TaskWorker } from '../../src/tasks/worker.js';
import { userHeaders } from '../helpers/auth.js';
import { createTestDatabase } from '../helpers/app.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, waitForTask, type CatalogTestApp, type TaskBody } from '../scanner/helpers.js';

describe('Tasks API: GET /tasks, GET /tasks/{id}, POST /tasks/{id}/cancel, GET /tasks/stats', () => {
  let t: CatalogTestApp;
  beforeAll(async () => {
    t = await createCatalogApp();
  });
  afterAll(() => t.close());

  it('lists tasks paginated, filtered by status and type', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'A/A 1.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir);
    const scan = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    await waitForTask(t, scan.body.id);
    // No handler is registered for this type: it stays pending.
    const { task: pending } = await t.app.background.queue.enqueue({ type: 'test_unhandled' });

    const all = await api<{ data: TaskBody[]; total: number; page: number; pageSize: number }>(t, 'GET', '/api/v1/tasks?pageSize=1');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, pageSize: 1, total: 2 });
    expect(all.body.data[0]!.id).toBe(pending.id);
    const completed = await api<{ data: TaskBody[] }>(t, 'GET', '/api/v1/tasks?status=completed&type=scan_library');
    expect(completed.body.data.map((x) => x.id)).toEqual([scan.body.id]);
    const byType = await api<{ data: TaskBody[] }>(t, 'GET', '/api/v1/tasks?type=test_unhandled');
    expect(byType.body.data.map((x) => [x.id, x.status])).toEqual([[pending.id, 'pending']]);
    expect((await api(t, 'GET', '/api/v1/tasks?status=bogus')).status).toBe(400);
  });

  it('GET /tasks/{id} returns the task with task_id, task_type, status, progress; unknown id 404', async () => {
    const { task } = await t.app.background.queue.enqueue({ type: 'test_unhandled', payload: { x: 1 } });
    const res = await api(t, 'GET', `/api/v1/tasks/${task.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: task.id,
      task_id: task.id,
      task_type: 'test_unhandled',
      status: 'pending',
      progress: { current: 0, total: 0, message: '' },
      payload: { x: 1 },
    });
    const missing = await api(t, 'GET', `/api/v1/tasks/${newId()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'NotFound' });
  });

  it('POST /tasks/{id}/cancel: a pending task ends cancelled; an ended task is a 409', async () => {
    const { task } = await t.app.background.queue.enqueue({ type: 'test_unhandled' });
    const res = await api(t, 'POST', `/api/v1/tasks/${task.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: task.id, status: 'cancelled', cancel_requested: true, finished_at: expect.any(String) });
    const again = await api(t, 'POST', `/api/v1/tasks/${task.id}/cancel`);
    expect(again.status).toBe(409);
    expect((await api(t, 'POST', `/api/v1/tasks/${newId()}/cancel`)).status).toBe(404);
  });

  it('POST /tasks/{id}/cancel stops a running task: its AbortSignal fires and it ends cancelled within 2 s', async () => {
    let aborted = false;
    t.app.background.worker.register('test_sleep', async (ctx) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          clearTimeout(timer);
          resolve();
        });
      });
      ctx.signal.throwIfAborted();
    });
    const { task } = await t.app.background.queue.enqueue({ type: 'test_sleep' });
    await waitForTask(t, task.id, (x) => x.status === 'running');
    const started = Date.now();
    const res = await api(t, 'POST', `/api/v1/tasks/${task.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(aborted).toBe(true);
  });

  it('a failing handler ends the task failed with its error message', async () => {
    t.app.background.worker.register('test_fail', async () => {
      throw new Error('boom');
    });
    const { task } = await t.app.background.queue.enqueue({ type: 'test_fail' });
    const done = await waitForTask(t, task.id);
    expect(done).toMatchObject({ status: 'failed', error: 'boom' });
  });

  it('GET /tasks/stats counts by status and type with the average duration', async () => {
    const res = await api<{
      total: number;
      by_status: Record<string, number>;
      by_type: Array<{ task_type: string; total: number; average_duration_ms: number | null }>;
      average_duration_ms: number | null;
    }>(t, 'GET', '/api/v1/tasks/stats');
    expect(res.status).toBe(200);
    expect(res.body.by_status).toMatchObject({
      pending: expect.any(Number),
      running: expect.any(Number),
      completed: expect.any(Number),
      failed: 1,
      cancelled: 2,
    });
    expect(res.body.total).toBe(Object.values(res.body.by_status).reduce((a, b) => a + b, 0));
    const scans = res.body.by_type.find((x) => x.task_type === 'scan_library')!;
    expect(scans.total).toBe(1);
    expect(scans.average_duration_ms).toEqual(expect.any(Number));
    expect(res.body.average_duration_ms).toEqual(expect.any(Number));
  });

  it('tasks-read is needed to view, tasks-write to cancel', async () => {
    const reader = await userHeaders(t, 'reader');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/tasks', headers: reader })).statusCode).toBe(403);
    const { task } = await t.app.background.queue.enqueue({ type: 'test_unhandled' });
    const limited = await userHeaders(t, 'reader', ['tasks-read']);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${task.id}`, headers: limited })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/tasks/${task.id}/cancel`, headers: limited })).statusCode).toBe(403);
  });
});

describe('Durable queue: a task left running by a killed process is recovered on start', () => {
  it('re-queues a running task with a stale heartbeat and runs it to completion; out of attempts it fails', async () => {
    const t = await createCatalogApp({}, { start: false });
    try {
      const dir = libraryDir();
      await makeCbz(dir, 'R/R 01.cbz', { pages: 1 });
      const lib = await createLibrary(t, dir);
      const old = new Date(Date.now() - 3600_000).toISOString();
      const base = {
        status: 'running' as const,
        priority: 0,
        target_id: null,
        progress_current: 3,
        progress_total: 10,
        progress_message: 'working',
        result: null,
        error: null,
        cancel_requested: 0,
        worker_id: 'worker-killed',
        heartbeat_at: old,
        created_at: old,
        started_at: old,
        finished_at: null,
        updated_at: old,
      };
      const retried = newId();
      const exhausted = newId();
      await t.database.db
        .insertInto('tasks')
        .values([
          {
            ...base,
            id: retried,
            type: 'scan_library',
            library_id: lib.id,
            payload: JSON.stringify({ mode: 'normal' }),
            active_key: `scan_library:${lib.id}`,
            attempts: 1,
            max_attempts: 3,
          },
          {
            ...base,
            id: exhausted,
            type: 'analyze_book',
            library_id: lib.id,
            payload: '{}',
            active_key: null,
            attempts: 3,
            max_attempts: 3,
          },
        ])
        .execute();
      await t.app.background.start();
      const done = await waitForTask(t, retried);
      expect(done.status).toBe('completed');
      expect(done.result).toMatchObject({ books_added: 1 });
      const failed = await api<TaskBody>(t, 'GET', `/api/v1/tasks/${exhausted}`);
      expect(failed.body).toMatchObject({ status: 'failed', error: expect.stringContaining('Interrupted') });
    } finally {
      await t.close();
    }
  });
});

describe('Claiming: several workers on one database never run the same task twice', () => {
  it('concurrent claims get disjoint tasks (FOR UPDATE SKIP LOCKED on PostgreSQL, guarded UPDATE on SQLite)', async () => {
    const { database, drop } = await createTestDatabase();
    try {
      const queueA = new TaskQueue(database);
      const queueB = new TaskQueue(database);
      for (let i = 0; i < 30; i++) await queueA.enqueue({ type: 'job' });
      const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? queueA : queueB).claim(`w${i}`, ['job'], 4)));
      const ids = claims.flat().map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(30);
      const rows = await database.db.selectFrom('tasks').select(['status', 'attempts']).execute();
      expect(rows.every((r) => r.status === 'running' && r.attempts === 1)).toBe(true);
    } finally {
      await database.close();
      await drop();
    }
  });

  it('the worker runs at most `concurrency` tasks at once', async () => {
    const { database, drop } = await createTestDatabase();
    const queue = new TaskQueue(database);
    const worker = new TaskWorker(queue, new EventBus(), { concurrency: 2, pollIntervalMs: 20 });
    let running = 0;
    let peak = 0;
    worker.register('job', async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 40));
      running--;
      return { at: nowIso() };
    });
    try {
      for (let i = 0; i < 6; i++) await queue.enqueue({ type: 'job' });
      await worker.start();
      const deadline = Date.now() + 10_000;
      while ((await queue.list({ status: 'completed' }, 0, 10)).total < 6 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect((await queue.list({ status: 'completed' }, 0, 10)).total).toBe(6);
      expect(peak).toBe(2);
    } finally {
      await worker.stop();
      await database.close();
      await drop();
    }
  });

  it('the worker says busy when its first task starts and idle once none has run for a while (bulk work tightens heap growth meanwhile)', async () => {
    const { database, drop } = await createTestDatabase();
    const queue = new TaskQueue(database);
    const changes: boolean[] = [];
    const worker = new TaskWorker(queue, new EventBus(), {
      concurrency: 2,
      pollIntervalMs: 20,
      idleAfterMs: 300,
      onBusyChange: (busy) => changes.push(busy),
    });
    worker.register('job', () => new Promise((r) => setTimeout(() => r({ at: nowIso() }), 60)));
    const until = async (done: () => boolean | Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      // Five tasks, two at a time: however their ends and claims interleave, they make one busy period.
      for (let i = 0; i < 5; i++) await queue.enqueue({ type: 'job' });
      await worker.start();
      await until(async () => (await queue.list({ status: 'completed' }, 0, 10)).total === 5);
      expect(changes).toEqual([true]);
      await until(() => changes.length === 2);
      expect(changes).toEqual([true, false]);
      await queue.enqueue({ type: 'job' });
      worker.wake();
      await until(() => changes.length === 4);
      expect(changes).toEqual([true, false, true, false]);
      // Stopping while busy says idle at once.
      await queue.enqueue({ type: 'job' });
      worker.wake();
      await until(() => changes.length === 5);
      await worker.stop();
      expect(changes).toEqual([true, false, true, false, true, false]);
    } finally {
      await worker.stop();
      await database.close();
      await drop();
    }
  });

  it('light task types (identification) leave the worker idle: readers keep the default heap growth', async () => {
    const { database, drop } = await createTestDatabase();
    const queue = new TaskQueue(database);
    const changes: boolean[] = [];
    const worker = new TaskWorker(queue, new EventBus(), {
      concurrency: 2,
      pollIntervalMs: 20,
      idleAfterMs: 100,
      lightTypes: ['light'],
      onBusyChange: (busy) => changes.push(busy),
    });
    worker.register('light', () => new Promise((r) => setTimeout(() => r(null), 60)));
    worker.register('job', () => new Promise((r) => setTimeout(() => r(null), 60)));
    const until = async (done: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await done()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await queue.enqueue({ type: 'light' });
      await worker.start();
      await until(async () => (await queue.list({ status: 'completed' }, 0, 10)).total === 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(changes).toEqual([]);
      await queue.enqueue({ type: 'job' });
      worker.wake();
      await until(async () => (await queue.list({ status: 'completed' }, 0, 10)).total === 2);
      await until(async () => changes.length === 2);
      expect(changes).toEqual([true, false]);
    } finally {
      await worker.stop();
      await database.close();
      await drop();
    }
  });

  it('tightening heap growth for a busy period runs a full collection without leaving `gc` in the global scope', () => {
    expect(() => {
      tightHeapGrowthWhileBusy(true);
      tightHeapGrowthWhileBusy(true);
      tightHeapGrowthWhileBusy(false);
    }).not.toThrow();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
