import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TaskProgressEvent } from '../../src/events/types.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, waitForTask, type CatalogTestApp, type TaskBody } from './helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

/** A library of `count` small books (copies of one CBZ spread over folders of 100). */
async function bigLibrary(count: number): Promise<string> {
  const dir = libraryDir();
  const source = await makeCbz(path.dirname(dir), 'source.cbz', { pages: 1, pageSize: { width: 64, height: 96 } });
  for (let i = 0; i < count; i++) {
    const folder = path.join(dir, `Series ${String(Math.floor(i / 100)).padStart(2, '0')}`);
    if (i % 100 === 0) await mkdir(folder, { recursive: true });
    await copyFile(source, path.join(folder, `Book ${String(i).padStart(4, '0')}.cbz`));
  }
  return dir;
}

describe('POST /libraries/{id}/scan?mode=normal|deep answers 202 with the task', () => {
  it('returns the scan_library task; mode defaults to the library default_mode', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'A/A 01.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir, { scanning_config: { default_mode: 'deep' } });
    const res = await api<TaskBody & { payload: { mode: string } }>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ task_id: res.body.id, task_type: 'scan_library', library_id: lib.id, payload: { mode: 'deep' } });
    expect(['pending', 'running']).toContain(res.body.status);
    expect(res.body.progress).toEqual({ current: expect.any(Number), total: expect.any(Number), message: expect.any(String) });
    await waitForTask(t, res.body.id);
    const normal = await api<{ payload: { mode: string }; id: string }>(t, 'POST', `/api/v1/libraries/${lib.id}/scan?mode=normal`);
    expect(normal.body.payload.mode).toBe('normal');
    await waitForTask(t, normal.body.id);
    expect((await api(t, 'POST', `/api/v1/libraries/${lib.id}/scan?mode=fast`)).status).toBe(400);
    expect((await api(t, 'POST', `/api/v1/libraries/0190a0a0-0000-7000-8000-000000000000/scan`)).status).toBe(404);
  });

  it('a second scan of the same library while one runs returns the running task', async () => {
    const lib = await createLibrary(t, await bigLibrary(300));
    const first = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    const second = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan?mode=deep`);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    const active = await api<{ data: Array<{ library_id: string; task_id: string; state: string }> }>(t, 'GET', '/api/v1/scans/active');
    expect(active.status).toBe(200);
    expect(active.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ library_id: lib.id, task_id: first.body.id })]));
    const done = await waitForTask(t, first.body.id);
    expect(done.status).toBe('completed');
    const active2 = await api<{ data: Array<{ library_id: string }> }>(t, 'GET', '/api/v1/scans/active');
    expect(active2.body.data.some((s) => s.library_id === lib.id)).toBe(false);
  });
});

describe('GET /libraries/{id}/scan-status', () => {
  it('idle before the first scan; state, mode, times and counters after it', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'S/S 01.cbz', { pages: 1 });
    await makeCbz(dir, 'S/S 02.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir);
    const idle = await api(t, 'GET', `/api/v1/libraries/${lib.id}/scan-status`);
    expect(idle.status).toBe(200);
    expect(idle.body).toMatchObject({ library_id: lib.id, state: 'idle', task_id: null });
    const task = await scan(t, lib.id, 'normal');
    const status = await api(t, 'GET', `/api/v1/libraries/${lib.id}/scan-status`);
    expect(status.body).toMatchObject({
      library_id: lib.id,
      state: 'completed',
      task_id: task.id,
      mode: 'normal',
      started_at: expect.any(String),
      finished_at: expect.any(String),
      error: null,
      counters: {
        files_discovered: 2,
        files_processed: 2,
        series_created: 1,
        books_added: 2,
        books_updated: 0,
        books_deleted: 0,
        books_restored: 0,
        errors: 0,
      },
    });
    const library = await api(t, 'GET', `/api/v1/libraries/${lib.id}`);
    expect(library.body.last_scanned_at).toEqual(expect.any(String));
  });
});

interface ScanStatus {
  state: string;
  task_id: string | null;
  mode: string | null;
  started_at: string | null;
  finished_at: string | null;
  counters: { files_discovered: number; files_processed: number; books_added: number; errors: number };
}

describe('GET /libraries/{id}/scan-status during a scan', () => {
  it('reports state running with counters that move while the scan runs, then the final counters', async () => {
    const count = 1500;
    const lib = await createLibrary(t, await bigLibrary(count));
    // A floor under the scan's duration that does not depend on the machine: the bus runs listeners
    // synchronously, so a listener that holds each book_created for 2 ms keeps this scan running at least
    // 2 × count ms (the scanner publishes after each committed batch of books, 200 at a time).
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const off = t.app.events.on('book_created', (e) => {
      if (e.library_id === lib.id) Atomics.wait(pause, 0, 0, 2);
    });
    const seen: ScanStatus[] = [];
    let started: TaskBody;
    try {
      started = (await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`)).body;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await api<ScanStatus>(t, 'GET', `/api/v1/libraries/${lib.id}/scan-status`);
        expect(res.status).toBe(200);
        seen.push(res.body);
        if (!['pending', 'running'].includes(res.body.state)) break;
        if (Date.now() > deadline) throw new Error(`scan still ${res.body.state} after 60 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      off();
    }
    const running = seen.filter((s) => s.state === 'running');
    expect(
      running.length,
      JSON.stringify(seen.map((s) => [s.state, s.counters.files_discovered, s.counters.files_processed])),
    ).toBeGreaterThan(1);
    for (const s of running)
      expect(s).toMatchObject({ task_id: started.id, mode: 'normal', started_at: expect.any(String), finished_at: null });
    // Files are discovered and processed while the scan runs, and the processed count grows from poll to poll.
    const working = running.filter(
      (s) => s.counters.files_discovered > 0 && s.counters.files_processed > 0 && s.counters.files_processed < count,
    );
    expect(working.length).toBeGreaterThan(0);
    const processed = running.map((s) => s.counters.files_processed);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));
    expect(new Set(processed).size, `processed while running: ${processed.join(',')}`).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toMatchObject({
      state: 'completed',
      task_id: started.id,
      finished_at: expect.any(String),
      counters: { files_discovered: count, files_processed: count, books_added: count, errors: 0 },
    });
  });
});

describe('Cancelling a scan really stops the work: cancelled within 2 s, committed work consistent, rescan completes', () => {
  it('cancel mid-scan then rescan completes', async () => {
    const count = 1200;
    const lib = await createLibrary(t, await bigLibrary(count));
    const started = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    // Wait until the first batch is committed, then cancel.
    await new Promise<void>((resolve) => {
      const off = t.app.events.on('book_created', (e) => {
        if (e.library_id === lib.id) {
          off();
          resolve();
        }
      });
    });
    const askedAt = Date.now();
    const cancel = await api(t, 'POST', `/api/v1/libraries/${lib.id}/scan/cancel`);
    expect(cancel.status).toBe(200);
    const ended = await waitForTask(t, started.body.id, undefined, 5000);
    expect(ended.status).toBe('cancelled');
    expect(Date.now() - askedAt).toBeLessThan(2000);
    // Nothing writes after the task ended, and what was committed is whole.
    const committed = await t.database.db
      .selectFrom('books')
      .select(['id', 'hash', 'page_count', 'series_id'])
      .where('library_id', '=', lib.id)
      .execute();
    await new Promise((r) => setTimeout(r, 300));
    const later = await t.database.db.selectFrom('books').select('id').where('library_id', '=', lib.id).execute();
    expect(later.length).toBe(committed.length);
    expect(committed.length).toBeGreaterThan(0);
    expect(committed.length).toBeLessThan(count);
    expect(committed.every((b) => b.hash !== null && b.page_count === 1)).toBe(true);
    const status = await api(t, 'GET', `/api/v1/libraries/${lib.id}/scan-status`);
    expect(status.body).toMatchObject({ state: 'cancelled', task_id: started.body.id });

    const rescan = await scan(t, lib.id);
    expect(rescan.result).toMatchObject({ files_discovered: count, books_added: count - committed.length, books_deleted: 0, errors: 0 });
    const total = await t.database.db
      .selectFrom('books')
      .select('id')
      .where('library_id', '=', lib.id)
      .where('deleted_at', 'is', null)
      .execute();
    expect(total).toHaveLength(count);
  });

  it('a first scan whose walk fails (the folder is gone) fails with the reason and writes nothing', async () => {
    // A library's first scan analyses files while the walk runs: a failing walk must not leave work behind.
    const dir = libraryDir();
    await makeCbz(dir, 'one.cbz', { pages: 1, pageSize: { width: 64, height: 96 } });
    const lib = await createLibrary(t, dir);
    await rm(dir, { recursive: true, force: true });
    const started = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    const ended = await waitForTask(t, started.body.id);
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatch(/library folder .* is missing or not a folder/i);
    const books = await t.database.db.selectFrom('books').select('id').where('library_id', '=', lib.id).execute();
    expect(books).toHaveLength(0);
  });

  it('POST /libraries/{id}/scan/cancel with no active scan is a 409', async () => {
    const lib = await createLibrary(t, libraryDir());
    const res = await api(t, 'POST', `/api/v1/libraries/${lib.id}/scan/cancel`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'Conflict' });
  });
});

describe('Task progress is published on the bus as task_progress {task_id, task_type, status, progress}', () => {
  it('running progress and the final status are published', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'P/P 01.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir);
    const seen: TaskProgressEvent[] = [];
    const off = t.app.events.on('task_progress', (e) => seen.push(e));
    const task = await scan(t, lib.id);
    // The task's row says completed a moment before its event is published: wait for the event, not the row.
    await vi.waitFor(() => expect(seen.some((e) => e.task_id === task.id && e.status === 'completed')).toBe(true));
    off();
    const mine = seen.filter((e) => e.task_id === task.id);
    expect(mine[0]).toMatchObject({
      task_id: task.id,
      task_type: 'scan_library',
      status: 'running',
      progress: { current: expect.any(Number), total: expect.any(Number), message: expect.any(String) },
    });
    expect(mine.at(-1)).toMatchObject({ status: 'completed', progress: { current: 1, total: 1 } });
  });
});

describe('Deleting a library cancels its running scan', () => {
  it('the scan ends cancelled and the library is gone', async () => {
    const lib = await createLibrary(t, await bigLibrary(400));
    const started = await api<TaskBody>(t, 'POST', `/api/v1/libraries/${lib.id}/scan`);
    await waitForTask(t, started.body.id, (x) => x.status === 'running');
    expect((await api(t, 'DELETE', `/api/v1/libraries/${lib.id}`)).status).toBe(204);
    const ended = await waitForTask(t, started.body.id);
    expect(ended.status).toBe('cancelled');
    expect(await t.database.db.selectFrom('books').select('id').where('library_id', '=', lib.id).execute()).toEqual([]);
  });
});

describe('POST /books/{id}/analyze and POST /series/{id}/analyze queue re-analysis tasks', () => {
  it('queues analyze_book and analyze_series tasks that complete; unknown ids are 404', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'X/X 01.cbz', { pages: 2 });
    await makeCbz(dir, 'X/X 02.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    const book = await t.database.db
      .selectFrom('books')
      .selectAll()
      .where('library_id', '=', lib.id)
      .orderBy('path')
      .executeTakeFirstOrThrow();
    // A stale stored value is corrected by the re-analysis.
    await t.database.db.updateTable('books').set({ page_count: 99 }).where('id', '=', book.id).execute();
    const res = await api<TaskBody & { target_id: string }>(t, 'POST', `/api/v1/books/${book.id}/analyze`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ task_type: 'analyze_book', target_id: book.id, library_id: lib.id });
    expect((await waitForTask(t, res.body.id)).status).toBe('completed');
    expect(
      (await t.database.db.selectFrom('books').select('page_count').where('id', '=', book.id).executeTakeFirstOrThrow()).page_count,
    ).toBe(2);

    const series = await api<TaskBody & { target_id: string }>(t, 'POST', `/api/v1/series/${book.series_id}/analyze`);
    expect(series.status).toBe(202);
    expect(series.body).toMatchObject({ task_type: 'analyze_series', target_id: book.series_id });
    const done = await waitForTask(t, series.body.id);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ files_processed: 2, errors: 0 });

    expect((await api(t, 'POST', `/api/v1/books/0190a0a0-0000-7000-8000-000000000000/analyze`)).status).toBe(404);
    expect((await api(t, 'POST', `/api/v1/series/0190a0a0-0000-7000-8000-000000000000/analyze`)).status).toBe(404);
  });
});
