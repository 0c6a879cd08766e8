import { cpSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connection.js';
import type { App } from '../../src/http/types.js';
import { makeTempDir, testDatabaseType } from '../helpers/config.js';
import { makeCbz, makeImage } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, type CatalogTestApp } from '../scanner/helpers.js';

/** Quiet period of the libraries under test: short, so the tests stay quick. */
const QUIET = 0.3;
const WATCH = { scanner: { watch: true, watch_check_ms: 150 } };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let page: Buffer | undefined;

/** Books with distinct contents (a ComicInfo number each) in `dir`; one tiny page made once. */
async function books(dir: string, count: number, prefix = 'Book'): Promise<void> {
  mkdirSync(dir, { recursive: true });
  page ??= await makeImage({ width: 8, height: 8, format: 'png' });
  for (let i = 1; i <= count; i++)
    await makeCbz(dir, `${prefix} ${String(i).padStart(2, '0')}.cbz`, {
      pages: [{ name: 'p1.png', data: page }],
      comicInfo: { Title: `${prefix} ${i}`, Number: i, Notes: path.basename(dir) },
      store: true,
    });
}

function scanTasks(t: CatalogTestApp, libraryId: string) {
  return t.database.db
    .selectFrom('tasks')
    .select(['id', 'status', 'payload'])
    .where('type', '=', 'scan_library')
    .where('library_id', '=', libraryId)
    .orderBy('created_at')
    .execute();
}

function presentBooks(t: CatalogTestApp, libraryId: string) {
  return t.database.db
    .selectFrom('books')
    .select(['id', 'path', 'page_count', 'analysis_error', 'deleted_at'])
    .where('library_id', '=', libraryId)
    .where('deleted_at', 'is', null)
    .orderBy('path')
    .execute();
}

/** Waits until every scan of the library has ended and none is queued. */
async function scansSettled(t: CatalogTestApp, libraryId: string, count: number) {
  let tasks: Awaited<ReturnType<typeof scanTasks>> = [];
  return waitFor(
    `${count} finished scans`,
    async () => {
      tasks = await scanTasks(t, libraryId);
      return tasks.length === count && tasks.every((x) => x.status === 'completed') && tasks;
    },
    60_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; scans: ${JSON.stringify(tasks)}`);
  });
}

/** One quiet period, the stability look and a task poll: what a watcher would need to queue another scan. */
const settleTime = () => new Promise((r) => setTimeout(r, QUIET * 1000 * 2 + 1200));

// Generous limits: scans on a busy machine take seconds; the waits end as soon as their condition holds.
describe('folder watching', { timeout: 120_000 }, () => {
  let t: CatalogTestApp;
  beforeAll(async () => {
    t = await createCatalogApp(WATCH);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  async function watchedLibrary(extra: Record<string, unknown> = {}) {
    const dir = libraryDir();
    const lib = await createLibrary(t, dir, { scanning_config: { watch_quiet_seconds: QUIET, ...extra } });
    await waitFor('the watch to start', async () => {
      const res = await api<{ data: { library_id: string; state: string }[] }>(t, 'GET', '/api/v1/libraries/watching');
      return res.body.data.find((s) => s.library_id === lib.id && (s.state === 'watching' || s.state === 'polling'));
    });
    return { dir, id: lib.id };
  }

  it('a folder of 20 books copied in is scanned once, as a targeted scan of that folder, after the quiet period', async () => {
    const { dir, id } = await watchedLibrary();
    const staging = path.join(makeTempDir('colophon-staging-'), 'Saga');
    await books(staging, 20);
    cpSync(staging, path.join(dir, 'Saga'), { recursive: true });
    const [task] = await scansSettled(t, id, 1);
    expect(JSON.parse(task!.payload)).toMatchObject({ paths: ['Saga'], reason: 'watch' });
    expect(await presentBooks(t, id)).toHaveLength(20);
    await settleTime();
    expect(await scanTasks(t, id)).toHaveLength(1);
  });

  it('a file written slowly, in chunks, is analysed once, complete', async () => {
    const { dir, id } = await watchedLibrary();
    const staging = makeTempDir('colophon-staging-');
    await books(staging, 1, 'Slow');
    const whole = await open(path.join(staging, 'Slow 01.cbz')).then(async (f) => {
      const data = await f.readFile();
      await f.close();
      return data;
    });
    mkdirSync(path.join(dir, 'Slow'));
    const target = await open(path.join(dir, 'Slow', 'Slow 01.cbz'), 'w');
    const chunk = Math.ceil(whole.length / 6);
    for (let i = 0; i < 6; i++) {
      await target.write(whole.subarray(i * chunk, (i + 1) * chunk));
      await target.sync();
      await new Promise((r) => setTimeout(r, 220));
    }
    await target.close();
    await scansSettled(t, id, 1);
    const [book] = await presentBooks(t, id);
    expect(book).toMatchObject({ path: 'Slow/Slow 01.cbz', page_count: 1, analysis_error: null });
    await settleTime();
    expect(await scanTasks(t, id)).toHaveLength(1);
  });

  it('a renamed folder keeps its books and their progress (moved by hash)', async () => {
    const { dir, id } = await watchedLibrary();
    await books(path.join(dir, 'Old name'), 2);
    await scansSettled(t, id, 1);
    const before = await presentBooks(t, id);
    const admin = await t.database.db.selectFrom('users').select('id').where('role', '=', 'admin').executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    await t.database.db
      .insertInto('read_progress')
      .values({
        user_id: admin.id,
        book_id: before[0]!.id,
        current_page: 1,
        is_completed: 0,
        started_at: now,
        updated_at: now,
        completed_at: null,
        device_id: null,
      })
      .execute();
    renameSync(path.join(dir, 'Old name'), path.join(dir, 'New name'));
    await scansSettled(t, id, 2);
    const after = await presentBooks(t, id);
    expect(after.map((b) => [b.id, b.path])).toEqual(before.map((b) => [b.id, b.path.replace('Old name', 'New name')]));
    const progress = await t.database.db.selectFrom('read_progress').select('current_page').where('book_id', '=', before[0]!.id).execute();
    expect(progress).toEqual([{ current_page: 1 }]);
  });

  it('polling finds a change within its interval', async () => {
    const { dir, id } = await watchedLibrary({ watch_poll_seconds: 1 });
    const status = await api<{ state: string }>(t, 'GET', `/api/v1/libraries/${id}/watching`);
    expect(status.body.state).toBe('polling');
    const staging = path.join(makeTempDir('colophon-staging-'), 'Polled');
    await books(staging, 1);
    const started = Date.now();
    cpSync(staging, path.join(dir, 'Polled'), { recursive: true });
    // The change is found by the next walk (1 s), then waits for the quiet period and the stability look (<= 1 s).
    await waitFor('the scan of the polled folder', async () => (await scanTasks(t, id)).length === 1, 8000);
    expect(Date.now() - started).toBeLessThan(1000 + QUIET * 1000 + 1000 + 2000);
    await waitFor('the polled book', async () => (await presentBooks(t, id)).length === 1);
  });

  it('a library whose folder disappears pauses watching, says so on /health, and loses no book', async () => {
    const { dir, id } = await watchedLibrary();
    await books(path.join(dir, 'Kept'), 2);
    await scansSettled(t, id, 1);
    rmSync(dir, { recursive: true, force: true });
    const health = await waitFor('health to name the library', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      const body = res.json<{ status: string; checks: { libraries?: string }; reasons?: string[] }>();
      return body.checks.libraries === 'missing' && body.reasons?.some((r) => r.includes(id)) && body;
    });
    expect(health.status).toBe('degraded');
    const watching = await api<{ state: string; reason: string }>(t, 'GET', `/api/v1/libraries/${id}/watching`);
    expect(watching.body).toMatchObject({ state: 'paused' });
    // A scan asked for by hand refuses to run without the folder: nothing is soft-deleted.
    const res = await api<{ id: string }>(t, 'POST', `/api/v1/libraries/${id}/scan`);
    await waitFor('the scan to fail', async () => (await scanTasks(t, id)).find((x) => x.id === res.body.id)?.status === 'failed');
    expect(await presentBooks(t, id)).toHaveLength(2);
    const deleted = await t.database.db
      .selectFrom('books')
      .select('id')
      .where('library_id', '=', id)
      .where('deleted_at', 'is not', null)
      .execute();
    expect(deleted).toEqual([]);
    // The folder back: watching resumes with a scan of the whole library.
    mkdirSync(dir);
    await books(path.join(dir, 'Kept'), 2);
    await waitFor('watching to resume', async () => {
      const again = await api<{ state: string }>(t, 'GET', `/api/v1/libraries/${id}/watching`);
      return again.body.state === 'watching';
    });
  });
});

describe.runIf(testDatabaseType() === 'postgres')('folder watching with two instances on PostgreSQL', { timeout: 120_000 }, () => {
  let t: CatalogTestApp;
  let second: App;
  beforeAll(async () => {
    t = await createCatalogApp(WATCH);
    second = await buildApp({ config: t.config, database: openDatabase(t.config), logger: false });
    await second.ready();
    await second.background.start();
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it('one instance watches a library, and a change is scanned once', async () => {
    const dir = libraryDir();
    const { id } = await createLibrary(t, dir, { scanning_config: { watch_quiet_seconds: QUIET } });
    const states = await waitFor('one watcher and one standby', async () => {
      await second.background.watching.check();
      const both = [t.app.background.watching.get(id)?.state, second.background.watching.get(id)?.state].sort();
      return both[0] === 'elsewhere' && both[1] === 'watching' && both;
    });
    expect(states).toEqual(['elsewhere', 'watching']);
    await books(path.join(dir, 'Once'), 3);
    await scansSettled(t, id, 1);
    expect(await presentBooks(t, id)).toHaveLength(3);
    await settleTime();
    expect(await scanTasks(t, id)).toHaveLength(1);
  });
});
