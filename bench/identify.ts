/**
 * `npm run bench -- --identify`: issue 51's speed goals for identification, measured on the server as users run it
 * (bench/server-process.ts) over HTTP, with MangaDex answered by a replay server in this process from its recorded
 * answers (test/fixtures/providers/SOURCES.md: the Hondana list of 100 entries for every title search, an entry by id
 * in the `entity` envelope). The library: 1,000 series folders, ten per title of that list, one one-page CBZ each.
 *
 * - `identify_library` over the 1,000 series, twice: the first run fills the answer cache (MangaDex's documented 5
 *   requests a second paces it), the second is the warm run (goal < 30 s).
 * - page serving (`GET /books/{id}/pages/1`, a random book each request, wrk, 20 connections) for `--seconds`
 *   without a task, then for as long again while a warm `identify_library` runs (goal: p95 within 1.2× of the
 *   first). The task's own run time and whether it outlasted the load are printed, with the load average.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../test/media/fixtures.js';
import { repoRoot, sleep, startServerProcess, type ServerProcess } from './server-process.js';
import { requireWrk, runWrk } from './wrk.js';

const SERIES = 1000;
const PER_TITLE = 10;
const GOAL_WARM_MS = 30_000;
const FIXTURES = path.join(repoRoot, 'test/fixtures/providers/mangadex');

const LIST = readFileSync(path.join(FIXTURES, 'manga-list-limit100-includes-total85451-hondana.json'), 'utf8');
const ENTITY = JSON.parse(readFileSync(path.join(FIXTURES, 'manga-d86cf65b-5f6c-437d-a0af-19a31f94ec55-includes.json'), 'utf8')) as object;
const ITEMS = (JSON.parse(LIST) as { data: { id: string; attributes: { title: Record<string, string> } }[] }).data;

async function mangaDex(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const byId = new Map(ITEMS.map((item) => [item.id, item]));
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const { pathname } = new URL(req.url ?? '/', 'http://replay');
    if (pathname === '/manga') return res.writeHead(200, { 'content-type': 'application/json' }).end(LIST);
    const item = byId.get(pathname.split('/')[2] ?? '');
    if (!item) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"result":"error","errors":[]}');
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...ENTITY, data: item }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function corpus(): Promise<string> {
  const root = path.join(os.tmpdir(), `colophon-bench-identify-${SERIES}`, 'library');
  const done = path.join(root, '..', 'complete');
  if (existsSync(done)) return root;
  const titles = ITEMS.map((item) => Object.values(item.attributes.title)[0] ?? item.id).slice(0, SERIES / PER_TITLE);
  for (let i = 0; i < SERIES; i++) {
    const title = titles[i % titles.length]!.replace(/[/\\:*?"<>|]/g, ' ');
    const folder = path.join(root, `[G${Math.floor(i / titles.length)}] ${title} v01 (Digital)`);
    mkdirSync(folder, { recursive: true });
    await makeCbz(folder, 'v01.cbz', { pages: 1, pageSize: { width: 400, height: 600 } });
  }
  mkdirSync(done);
  return root;
}

async function finished(server: ServerProcess, id: string): Promise<{ status: string; result: Record<string, unknown> }> {
  for (;;) {
    const t = (await server.call<{ status: string; result: Record<string, unknown>; error: string | null }>('GET', `/tasks/${id}`)).body;
    if (t.status === 'completed') return t;
    if (t.status === 'failed' || t.status === 'cancelled') throw new Error(`task ${t.status}: ${t.error}`);
    await sleep(100);
  }
}

const identify = async (server: ServerProcess, libraryId: string) =>
  (await server.call<{ id: string }>('POST', `/libraries/${libraryId}/identify`, { which: 'all' })).body.id;

const loadText = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');

export async function run(argv: readonly string[]): Promise<void> {
  requireWrk();
  const at = argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(argv[at + 1]) : 10;
  const library = await corpus();
  const replay = await mangaDex();
  const server = await startServerProcess({ metadata: { providers: { mangadex: { base_url: replay.url } } } });
  try {
    const created = (
      await server.call<{ id: string }>('POST', '/libraries', { name: 'Bench', path: library, scanning_config: { media_type: 'manga' } })
    ).body;
    await finished(server, (await server.call<{ id: string }>('POST', `/libraries/${created.id}/scan`)).body.id);
    await server.call('PUT', '/metadata/providers/mangadex', { enabled: true });
    const books: string[] = [];
    for (let page = 1; books.length < SERIES; page++) {
      const got = (await server.call<{ data: { id: string }[] }>('GET', `/books?pageSize=500&page=${page}`)).body.data;
      if (got.length === 0) break;
      books.push(...got.map((b) => b.id));
    }

    let clock = performance.now();
    const cold = await finished(server, await identify(server, created.id));
    const coldMs = performance.now() - clock;
    const coldRequests = replay.requests();
    clock = performance.now();
    const warm = await finished(server, await identify(server, created.id));
    const warmMs = performance.now() - clock;
    const warmRequests = replay.requests() - coldRequests;

    const load = {
      base: server.base,
      requests: books.map((id) => ({ path: `/api/v1/books/${id}/pages/1` })),
      headers: { Authorization: `Bearer ${server.token}` },
      connections: 20,
      seconds,
      warmupSeconds: 3,
    };
    const quiet = await runWrk({ ...load, seconds: Math.max(2, Math.min(seconds, Math.floor((warmMs / 1000) * 0.8))) });
    const taskId = await identify(server, created.id);
    const taskStarted = performance.now();
    // As long as a warm run lasts (less a margin), so that the whole load falls while the task runs.
    const busySeconds = Math.max(2, Math.min(seconds, Math.floor((warmMs / 1000) * 0.8)));
    // One page now and then from here too: what a reader waits while the task runs, whatever wrk says.
    const probes: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t0 = performance.now();
        const res = await fetch(`${server.base}/api/v1/books/${books[probes.length % books.length]}/pages/1`, { headers: load.headers });
        await res.arrayBuffer();
        probes.push(performance.now() - t0);
        await sleep(250);
      }
    })();
    const busy = await runWrk({ ...load, seconds: busySeconds, warmupSeconds: 1 });
    probing = false;
    await probe;
    const taskStatus = (await server.call<{ status: string }>('GET', `/tasks/${taskId}`)).body.status;
    await finished(server, taskId);
    const taskMs = performance.now() - taskStarted;

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `identification, ${SERIES} series (${SERIES / PER_TITLE} titles), SQLite, ${os.cpus().length} cores, Node ${process.version}`,
    );
    console.log(`  cold: ${s(coldMs)}, ${coldRequests} requests to MangaDex; ${JSON.stringify(cold.result)}`);
    console.log(`  warm: ${s(warmMs)} (goal < ${s(GOAL_WARM_MS)}), ${warmRequests} requests; ${JSON.stringify(warm.result)}`);
    const p = (r: typeof quiet) =>
      `${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p95 ${r.latency.p95.toFixed(2)} ms${r.valid ? '' : ` (invalid: ${r.problem})`}`;
    console.log(`  pages without a task: ${p(quiet)}; load ${loadText(quiet.load.before)} → ${loadText(quiet.load.after)}`);
    console.log(`  pages during identify_library: ${p(busy)}; load ${loadText(busy.load.before)} → ${loadText(busy.load.after)}`);
    console.log(
      `  single pages during the task: ${probes.length}, slowest ${Math.max(...probes).toFixed(1)} ms, median ${[...probes].sort((a, b) => a - b)[Math.floor(probes.length / 2)]?.toFixed(1)} ms`,
    );
    console.log(
      `  p95 ratio ${(busy.latency.p95 / quiet.latency.p95).toFixed(2)}× (goal ≤ 1.2×); the task ${taskStatus === 'running' ? 'was still running at the end of the load' : `had ${taskStatus} before the load ended`} (${s(taskMs)} in all)`,
    );
  } finally {
    await server.stop();
    await replay.close();
  }
}
