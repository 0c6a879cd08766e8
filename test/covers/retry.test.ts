import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCacheDir } from '../../src/data-dir.js';
import { cachedPath } from '../../src/media/rendering/derived-cache.js';
import { thumbnailVariant } from '../../src/media/rendering/thumbnails.js';
import { makeCbz } from '../media/fixtures.js';
import {
  api,
  createCatalogApp,
  createLibrary,
  libraryDir,
  scan,
  waitForTask,
  type CatalogTestApp,
  type TaskBody,
} from '../scanner/helpers.js';

let t: CatalogTestApp;
let cacheDir: string;
beforeAll(async () => {
  t = await createCatalogApp({ thumbnails: { pregenerate: true } });
  cacheDir = derivedCacheDir(t.config);
});
afterAll(() => t.close());

async function coverTasks(libraryId: string): Promise<TaskBody[]> {
  return (await api<{ data: TaskBody[] }>(t, 'GET', `/api/v1/tasks?type=generate_thumbnails&library_id=${libraryId}&pageSize=100`)).body
    .data;
}

/** The newest cover task of the library once there are `count` of them, run to its end. */
async function coverRun(libraryId: string, count: number): Promise<TaskBody> {
  const deadline = Date.now() + 10_000;
  let tasks = await coverTasks(libraryId);
  while (tasks.length < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    tasks = await coverTasks(libraryId);
  }
  expect(tasks.length, 'cover tasks queued').toBe(count);
  return waitForTask(t, tasks[0]!.id);
}

async function hashes(libraryId: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('books').select('hash').where('library_id', '=', libraryId).execute();
  return rows.map((r) => r.hash!).filter(Boolean);
}

const coverFile = (hash: string) => cachedPath(cacheDir, hash, thumbnailVariant(400, undefined, 'jpeg'));

describe('covers the server failed to make are made later', () => {
  it('a run that could not write the cache (disk full) is queued again by the next scan, changed books or not', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Full 001.cbz', { pages: 1 });
    await makeCbz(dir, 'Full 002.cbz', { pages: 1, pageSize: { width: 500, height: 800 } });
    await makeCbz(dir, 'broken.cbz', { pages: [{ name: 'p1.jpg', data: Buffer.from('not an image') }] });
    // The cache folder cannot be written: a file stands where it should be (as a full disk, every write fails).
    await rm(cacheDir, { recursive: true, force: true });
    await mkdir(path.dirname(cacheDir), { recursive: true });
    await writeFile(cacheDir, 'in the way');
    const library = await createLibrary(t, dir);
    await scan(t, library.id);
    const failed = await coverRun(library.id, 1);
    expect(failed.status).toBe('completed');
    expect(failed.result).toMatchObject({ books: 3, generated: 0, failed: 3, deferred: 2 });

    // Space is back. The next scan changes no book, yet the covers are made.
    await rm(cacheDir, { force: true });
    await scan(t, library.id);
    const retried = await coverRun(library.id, 2);
    expect(retried.status).toBe('completed');
    expect(retried.result).toMatchObject({ generated: 2, failed: 1, deferred: 0 });
    const made = (await hashes(library.id)).filter((h) => existsSync(coverFile(h)));
    expect(made).toHaveLength(2);

    // Done now (the broken book is the book's fault, not the server's): an unchanged scan queues nothing more.
    await scan(t, library.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await coverTasks(library.id)).toHaveLength(2);
  });

  it('a run interrupted by a killed process is run again when the worker starts, and makes the covers', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Killed 001.cbz', { pages: 1 });
    await makeCbz(dir, 'Killed 002.cbz', { pages: 1, pageSize: { width: 500, height: 800 } });
    const library = await createLibrary(t, dir);
    await scan(t, library.id);
    const first = await coverRun(library.id, 1);
    expect(first.status).toBe('completed');
    // As a process killed half-way leaves it: the task `running` under a dead worker, its covers not all made.
    await t.app.background.stop();
    for (const hash of await hashes(library.id)) await rm(path.dirname(coverFile(hash)), { recursive: true, force: true });
    await t.database.db
      .updateTable('tasks')
      .set({
        status: 'running',
        worker_id: 'killed-process',
        heartbeat_at: new Date(Date.now() - 3_600_000).toISOString(),
        finished_at: null,
        result: null,
        active_key: `generate_thumbnails:${library.id}`,
      })
      .where('id', '=', first.id)
      .execute();
    await t.app.background.start();
    const rerun = await waitForTask(t, first.id);
    expect(rerun.status, rerun.error ?? '').toBe('completed');
    expect(rerun.result).toMatchObject({ generated: 2, failed: 0 });
    expect((await hashes(library.id)).filter((h) => existsSync(coverFile(h)))).toHaveLength(2);
  });

  it('a cover still missing is made when it is asked for', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Asked 001.cbz', { pages: 1 });
    const library = await createLibrary(t, dir);
    await scan(t, library.id);
    await coverRun(library.id, 1);
    const book = await t.database.db
      .selectFrom('books')
      .select(['id', 'hash'])
      .where('library_id', '=', library.id)
      .executeTakeFirstOrThrow();
    const hash = book.hash;
    expect(existsSync(coverFile(hash!))).toBe(true);
    await rm(path.dirname(coverFile(hash!)), { recursive: true, force: true });
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/books/${book.id}/thumbnail`,
      headers: { ...t.headers, accept: 'image/jpeg' },
    });
    expect(res.statusCode).toBe(200);
    expect(existsSync(coverFile(hash!))).toBe(true);
  });
});
