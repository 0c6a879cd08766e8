import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userHeaders, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { getRoutes, type RouteCall } from '../helpers/route-table.js';
import { makeCbz, makeEpub } from '../media/fixtures.js';

/**
 * Where libraries live on the server is for those who manage libraries (`libraries-write`). Every GET route of
 * the app — native, OPDS, Komga, KOReader, the web app — is walked from the route table as a reader, over real
 * HTTP, and no body may name the library's folder or the data folder.
 */
let t: CatalogTestApp;
let base: string;
let libraryId: string;
let dir: string;
let reader: Headers;
/** Sees background tasks without managing libraries (a custom permission): their outcomes name files relative to the library. */
let taskWatcher: Headers;
let calls: RouteCall[];

/** The body of a GET, read for at most a moment (an event stream never ends). */
async function body(url: string, headers: Headers): Promise<{ status: number; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 1500);
  try {
    const res = await fetch(`${base}${url}`, { headers, signal: controller.signal, redirect: 'manual' });
    let text = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body ?? []) text += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
    return { status: res.status, text };
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true } });
  const lib = await scannedLibrary(t, async (d) => {
    await makeCbz(d, 'Saga/Saga 001.cbz', { pages: 2, comicInfo: { Series: 'Saga', Number: 1 } });
    await makeEpub(d, 'Novels/A Novel.epub', { metadata: { title: 'A Novel', language: 'en' } });
    // A damaged file: its analysis error and the scan's decision name it by its absolute path (issue 48).
    mkdirSync(path.join(d, 'Saga'), { recursive: true });
    writeFileSync(path.join(d, 'Saga', 'Saga 002.cbz'), 'not a zip archive');
  });
  libraryId = lib.id;
  dir = lib.dir;
  const books = (await t.app.inject({ method: 'GET', url: '/api/v1/books?pageSize=10', headers: t.headers })).json<
    Paged<{ id: string; series_id: string; format: string; analysis_error: string | null }>
  >().data;
  const comic = books.find((b) => b.format === 'cbz' && !b.analysis_error)!;
  const damaged = books.find((b) => b.analysis_error)!;
  expect(damaged, 'the damaged file is a book with an analysis error').toBeDefined();
  reader = await userHeaders(t, 'reader');
  taskWatcher = await userHeaders(t, 'reader', ['libraries-read', 'series-read', 'books-read', 'pages-read', 'tasks-read']);
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  calls = getRoutes(t.app.routeTable, { library: libraryId, series: comic.series_id, book: comic.id });
  // Every route about one book again, for the damaged one (the explainer, the book, its pages, Komga's and OPDS' views).
  const seen = new Set(calls.map((c) => c.url));
  for (const call of getRoutes(t.app.routeTable, { library: libraryId, series: damaged.series_id, book: damaged.id }))
    if (!seen.has(call.url)) calls.push(call);
});
afterAll(() => t.close());

describe('A reader never sees where libraries live on the server', () => {
  it('the walk is live: an administrator does see the library folder', async () => {
    const res = await body('/api/v1/libraries', t.headers);
    expect(res.status).toBe(200);
    expect(res.text).toContain(dir);
  });

  it('walks every GET route (native, OPDS, Komga, KOReader), from the route table', () => {
    expect(calls.length).toBeGreaterThan(80);
    for (const part of [
      '/api/v1/libraries/:id',
      '/opds/v2/',
      ':komgaPrefix/api/v1/libraries/:libraryId',
      ':komgaPrefix/api/v1/books/:bookId',
      '/koreader/',
      '/api/v1/books/:id/explain',
    ]) {
      expect(
        calls.some((c) => c.route.includes(part)),
        part,
      ).toBe(true);
    }
  });

  it('no body of any GET route names the library folder or the data folder', async () => {
    const secrets = [dir, t.config.data_dir];
    const leaks: string[] = [];
    const answered = new Set<number>();
    for (const [who, headers] of [
      ['reader', reader],
      ['task watcher', taskWatcher],
    ] as const) {
      for (const call of calls) {
        const res = await body(call.url, headers);
        answered.add(res.status);
        for (const secret of secrets) if (res.text.includes(secret)) leaks.push(`${call.route} (${res.status}, ${who}) names ${secret}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(answered.has(200)).toBe(true);
  }, 180_000);

  it("a task's error, result and progress name files relative to the library for a watcher of tasks; in full for an administrator", async () => {
    // As a failed write-back leaves it: the outcome names the file by its absolute path.
    const file = path.join(dir, 'Saga', 'Saga 002.cbz');
    const queue = t.app.background.queue;
    const { task } = await queue.enqueue({ type: 'paths_probe', libraryId });
    const [claimed] = await queue.claim('paths-probe', ['paths_probe'], 1);
    expect(claimed?.id).toBe(task.id);
    await queue.finish(task.id, 'paths-probe', 'failed', {
      error: `${file}: not a readable zip archive`,
      result: { written: [], failed: [{ path: file, reason: `could not be copied to ${dir}` }] },
      progress: { current: 1, total: 1, message: `Writing ${file}` },
    });
    for (const url of [`/api/v1/tasks/${task.id}`, `/api/v1/tasks?pageSize=100`]) {
      const watched = await body(url, taskWatcher);
      expect(watched.status, url).toBe(200);
      expect(watched.text, url).toContain('Saga/Saga 002.cbz');
      expect(watched.text, url).not.toContain(dir);
      const admin = await body(url, t.headers);
      expect(admin.text, url).toContain(file);
    }
  });

  it('libraries come without `path` (native) and with an empty `root` (Komga) below libraries-write', async () => {
    const list = await body('/api/v1/libraries', reader);
    const listed = (JSON.parse(list.text) as Paged<Record<string, unknown>>).data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('path');
    expect(listed[0]).toMatchObject({ id: libraryId, name: expect.any(String) as unknown });
    const one = JSON.parse((await body(`/api/v1/libraries/${libraryId}`, reader)).text) as Record<string, unknown>;
    expect(one).not.toHaveProperty('path');
    const komga = JSON.parse((await body('/komga/api/v1/libraries', reader)).text) as Array<Record<string, unknown>>;
    expect(komga[0]).toMatchObject({ id: libraryId, root: '' });
    const komgaOne = JSON.parse((await body(`/komga/api/v1/libraries/${libraryId}`, reader)).text) as Record<string, unknown>;
    expect(komgaOne).toMatchObject({ id: libraryId, root: '' });
    const admin = JSON.parse((await body(`/komga/api/v1/libraries/${libraryId}`, t.headers)).text) as Record<string, unknown>;
    expect(admin).toMatchObject({ root: dir });
  });
});
