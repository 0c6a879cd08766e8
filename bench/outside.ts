/**
 * `npm run bench`: speed as users see it (docs/benchmarks.md). The server runs as users
 * run it (`node dist/cli.js serve`, its own process, temp data folder, default config but rate limiting off)
 * and is driven over HTTP on loopback; every figure is printed beside a floor measured in the same run:
 *  - page serving: `GET /books/{id}/pages/1` (original bytes, a random CBZ each request, JWT) with autocannon in
 *    its own process, 20 connections, alternately twice each, the better run of each, against a bare node:http server in its own process doing fs.readFile of
 *    the same page bytes per request (bench/floors/page-server.mjs);
 *  - initial scan: clock from `POST /libraries` to the scan task's end (polled every 50 ms), best of 2 first scans
 *    each on a fresh server, against read + SHA-256 of the same files in 2 worker threads with 1 MiB reads
 *    (bench/floors/hash-floor.mjs, best of 3: before, between and after the scans, after one that warms the page
 *    cache); also both in CPU time;
 *  - peak RSS: VmHWM of the server's process after the scan and its follow-up cover tasks, against the bare
 *    node:http server's VmHWM after its page load;
 *  - RSS of the freshly started server at rest, 15 s after the admin's creation (no library; V8's memory reducer
 *    compacts an idle heap some seconds after start), and earlier: 1 s after the admin's creation, and 1 s after
 *    its first `/health` 200 before any other request (creating the admin hashes a password with argon2);
 *  - `npm start` to `/health` 200 with nothing changed since the last build (bench/start-time.ts).
 * Corpus (bench/user-corpus.ts): 200 series × 10 books of issue 22's shape, cached under the temp folder;
 * `--books 10000` (or BENCH_BOOKS=10000) uses 1,000 series of the same. `--seconds N` per page load (default 10,
 * after 2 s of unmeasured warm-up); `--json FILE` also writes the figures as JSON; `--only pages` measures page serving
 * alone (the scan still fills the library, untimed) for quick iterations.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad, type LoadResult } from './load-client.js';
import { measureStart, type StartFigures } from './start-time.js';
import { freePort, processMemory, repoRoot, sleep, startServerProcess, type ServerProcess } from './server-process.js';
import { ensureUserCorpus, ISSUE_SHAPE } from './user-corpus.js';

/**
 * When a fresh server's memory is taken "at rest": V8's memory reducer compacts an idle heap some seconds after
 * the allocations of a start stop (a fresh server measured 101–107 MB at 1 s, ~94 MB at 15 s: bench notes).
 */
const REST_MS = 15_000;

interface Row {
  measure: string;
  value: string;
  floor: string;
  ratio: string;
  goal: string;
  met?: boolean;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function hashFloor(listFile: string): Promise<{ ms: number; cpuMs: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'bench/floors/hash-floor.mjs'), listFile, '2'],
      { maxBuffer: 1 << 20 },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as { ms: number; cpuMs: number; bytes: number })),
    );
  });
}

async function startPageFloor(files: readonly string[]): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const listFile = path.join(os.tmpdir(), `bindery-bench-pages-${process.pid}.txt`);
  writeFileSync(listFile, files.join('\n'));
  removeOnExit(listFile);
  const child = spawn(process.execPath, [path.join(repoRoot, 'bench/floors/page-server.mjs'), String(port), listFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the floor page server exited (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { base: `http://127.0.0.1:${port}`, pid: child.pid!, stop: async () => (child.kill('SIGTERM'), await exited) };
}

function pageLoad(base: string, paths: readonly string[], seconds: number, headers: Record<string, string> = {}): Promise<LoadResult> {
  return runLoad({
    url: base,
    headers,
    connections: 20,
    duration: seconds,
    warmup: { connections: 20, duration: 2 },
    ...({ randomPaths: paths } as object),
  });
}

function checkLoad(name: string, result: LoadResult): void {
  const r = result as LoadResult & { timeouts?: number };
  if (r.errors > 0 || r.non2xx > 0 || (r.timeouts ?? 0) > 0)
    throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx answers, ${r.timeouts ?? 0} timeouts`);
}

/** CPU time (user + system, every thread) a process has used, in ms (Linux: /proc/<pid>/stat, 100 ticks a second). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface ScanRun {
  /** performance.now() when `POST /libraries` was sent. */
  clock: number;
  ms: number;
  cpuMs: number;
}

/** A library's first scan on `server`, timed from `POST /libraries` to the task's end (polled every 50 ms). */
async function timeFirstScan(server: ServerProcess, library: string, books: number): Promise<ScanRun> {
  const cpuBefore = processCpuMs(server.pid);
  const clock = performance.now();
  const created = (await server.call<{ id: string }>('POST', '/libraries', { name: 'Bench', path: library })).body;
  const task = (await server.call<{ id: string }>('POST', `/libraries/${created.id}/scan`)).body;
  let scanned: { status: string; result: { books_added?: number } | null; error: string | null };
  for (;;) {
    scanned = (await server.call<typeof scanned>('GET', `/tasks/${task.id}`)).body;
    if (['completed', 'failed', 'cancelled'].includes(scanned.status)) break;
    await sleep(50);
  }
  const ms = performance.now() - clock;
  const cpuMs = processCpuMs(server.pid) - cpuBefore;
  if (scanned.status !== 'completed' || scanned.result?.books_added !== books)
    throw new Error(`scan ${scanned.status}: ${scanned.error ?? JSON.stringify(scanned.result)}`);
  return { clock, ms, cpuMs };
}

/** The bench's own temp files go when it ends, however it ends. */
function removeOnExit(file: string): void {
  process.once('exit', () => rmSync(file, { force: true }));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

export async function run(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      books: { type: 'string' },
      seconds: { type: 'string', default: '10' },
      json: { type: 'string' },
      'skip-start': { type: 'boolean', default: false },
      only: { type: 'string' },
    },
    allowPositionals: true,
    strict: false,
  });
  // `--only pages`: the page-serving row alone (the scan still runs, untimed against its floor, to fill the library).
  const pagesOnly = values.only === 'pages';
  const books = Number(values.books ?? process.env.BENCH_BOOKS ?? 2000);
  const seconds = Number(values.seconds);
  const shape = { ...ISSUE_SHAPE, series: Math.round(books / ISSUE_SHAPE.perSeries) };
  const loadBefore = load();
  console.log(`Bindery from outside: ${os.availableParallelism()} CPUs, load average ${loadBefore}`);

  // What `npm start` would build, built first (its cost is not part of any figure).
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-if-stale.mjs'), ...(pagesOnly ? ['server'] : [])], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  const corpus = await ensureUserCorpus(shape, console.log);
  console.log(
    `corpus: ${corpus.books} books (${corpus.cbz} CBZ, ${corpus.epub} EPUB, ${corpus.pdf} PDF) in ${shape.series} series, ${(corpus.bytes / 1e9).toFixed(2)} GB, pages ~${(corpus.pageBytes / 1024).toFixed(0)} KB, at ${corpus.library}`,
  );
  const rows: Row[] = [];
  const figures: Record<string, unknown> = { books, loadBefore, corpus };

  // Scan floor: read + SHA-256 of the same files; the first run warms the page cache.
  const files = listFiles(corpus.library);
  const listFile = path.join(os.tmpdir(), `bindery-bench-files-${process.pid}.txt`);
  writeFileSync(listFile, files.join('\n'));
  removeOnExit(listFile);
  const floors = pagesOnly ? [] : [await hashFloor(listFile), await hashFloor(listFile)].slice(1);
  // The first scan twice, each on a fresh server, floors between them (the machine's speed drifts, both sides get
  // the best of their runs): this one alone, the second on the server the rest of the figures come from.
  const scans: ScanRun[] = [];
  if (!pagesOnly) {
    const alone = await startServerProcess();
    try {
      await sleep(REST_MS);
      scans.push(await timeFirstScan(alone, corpus.library, corpus.books));
    } finally {
      await alone.stop();
    }
    floors.push(await hashFloor(listFile));
  }

  // The server, fresh: its resting memory, then the timed first scan and the cover tasks that follow it.
  const server = await startServerProcess();
  try {
    await sleep(1000);
    const fresh = processMemory(server.pid);
    await sleep(REST_MS - 1000);
    const rest = processMemory(server.pid);
    const main = await timeFirstScan(server, corpus.library, corpus.books);
    scans.push(main);
    const clock = main.clock;
    const scanMs = Math.min(...scans.map((r) => r.ms));
    const scanCpuMs = Math.min(...scans.map((r) => r.cpuMs));
    // Cover tasks: queued when the scan ends; done when no task is pending or running.
    for (;;) {
      const stats = (await server.call<{ by_status: Record<string, number>; by_type: Array<{ task_type: string }> }>('GET', '/tasks/stats'))
        .body;
      const busy = (stats.by_status.pending ?? 0) + (stats.by_status.running ?? 0);
      if (busy === 0 && stats.by_type.some((t) => t.task_type === 'generate_thumbnails')) break;
      if (busy === 0 && performance.now() - clock - main.ms > 5000) break; // no follow-up task at all
      await sleep(50);
    }
    const coversMs = performance.now() - clock - main.ms;
    const afterScan = processMemory(server.pid);
    if (!pagesOnly) floors.push(await hashFloor(listFile)); // after the scan too: the machine's load drifts
    const hashMs = Math.min(...floors.map((f) => f.ms));
    const hashCpuMs = Math.min(...floors.map((f) => f.cpuMs));

    // Page serving, server and floor one after the other, the same number of seconds each.
    const bookIds: string[] = [];
    for (let page = 1; ; page++) {
      const list = (
        await server.call<{ data: Array<{ id: string; format: string | null }>; total?: number }>('GET', `/books?pageSize=500&page=${page}`)
      ).body;
      bookIds.push(...list.data.filter((b) => b.format === 'cbz').map((b) => b.id));
      if (list.data.length < 500) break;
    }
    // Page serving: server and floor alternately, twice each (the machine's load drifts), the better run of each.
    const serverPaths = bookIds.map((id) => `/api/v1/books/${id}/pages/1`);
    const floorPaths = bookIds.map((_, i) => `/p/${i}`);
    const floorServer = await startPageFloor(corpus.floorPages);
    const serverRuns: LoadResult[] = [];
    const floorRuns: LoadResult[] = [];
    let floorMemory: { rss: number; hwm: number };
    try {
      for (let round = 0; round < 2; round++) {
        serverRuns.push(await pageLoad(server.base, serverPaths, seconds, { authorization: `Bearer ${server.token}` }));
        checkLoad('server pages', serverRuns.at(-1)!);
        floorRuns.push(await pageLoad(floorServer.base, floorPaths, seconds));
        checkLoad('floor pages', floorRuns.at(-1)!);
      }
      floorMemory = processMemory(floorServer.pid);
    } finally {
      await floorServer.stop();
    }
    const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.requests.average > a.requests.average ? b : a));
    const serverPages = best(serverRuns);
    const floorPages = best(floorRuns);

    const rps = (r: LoadResult) => Math.round(r.requests.average);
    const pageRatio = rps(serverPages) / rps(floorPages);
    rows.push({
      measure: 'GET /books/{id}/pages/1, 20 connections, JWT',
      value: `${rps(serverPages)} req/s, p50 ${serverPages.latency.exact.p50} ms (runs ${serverRuns.map(rps).join(', ')})`,
      floor: `${rps(floorPages)} req/s, p50 ${floorPages.latency.exact.p50} ms (runs ${floorRuns.map(rps).join(', ')}; bare node:http + fs.readFile)`,
      ratio: pageRatio.toFixed(2),
      goal: '≥ 0.6 × floor',
      met: pageRatio >= 0.6,
    });
    const scanRatio = scanMs / hashMs;
    if (!pagesOnly)
      rows.push({
        measure: `initial scan, ${corpus.books} books (POST /libraries → task end)`,
        value: `${(scanMs / 1000).toFixed(2)} s (${Math.round((corpus.books * 1000) / scanMs)} books/s; runs ${scans.map((r) => (r.ms / 1000).toFixed(2)).join(', ')})`,
        floor: `${(hashMs / 1000).toFixed(2)} s (read + SHA-256, 2 threads, 1 MiB reads; runs ${floors.map((f) => (f.ms / 1000).toFixed(2)).join(', ')})`,
        ratio: scanRatio.toFixed(2),
        goal: '≤ 1.5 × floor',
        met: scanRatio <= 1.5,
      });
    if (!pagesOnly)
      rows.push({
        measure: '  the same in CPU time (all threads; steadier on a shared machine)',
        value: `${(scanCpuMs / 1000).toFixed(2)} s (runs ${scans.map((r) => (r.cpuMs / 1000).toFixed(2)).join(', ')})`,
        floor: `${(hashCpuMs / 1000).toFixed(2)} s (runs ${floors.map((f) => (f.cpuMs / 1000).toFixed(2)).join(', ')})`,
        ratio: (scanCpuMs / hashCpuMs).toFixed(2),
        goal: '',
      });
    if (!pagesOnly)
      rows.push({
        measure: `peak RSS (VmHWM), scan + cover tasks (${(coversMs / 1000).toFixed(1)} s)`,
        value: mb(afterScan.hwm),
        floor: `${mb(floorMemory.hwm)} (bare node:http server)`,
        ratio: (afterScan.hwm / floorMemory.hwm).toFixed(2),
        goal: books >= 10_000 ? '< 300 MB at 10,000 books' : '< 300 MB (at 10,000 books)',
        met: afterScan.hwm < 300 * MB,
      });
    if (!pagesOnly)
      rows.push({
        measure: `RSS of a freshly started server at rest, empty library (${REST_MS / 1000} s after the admin's creation; 1 s after it; before any request)`,
        value: `${mb(rest.rss)} (${mb(fresh.rss)}; ${mb(server.rssBeforeSetup)})`,
        floor: `${mb(floorMemory.rss)} (bare node:http server, after its load)`,
        ratio: (rest.rss / floorMemory.rss).toFixed(2),
        goal: '< 100 MB',
        met: rest.rss < 100 * MB,
      });
    Object.assign(figures, {
      pages: {
        server: { rps: rps(serverPages), latency: serverPages.latency.exact, runs: serverRuns.map(rps) },
        floor: { rps: rps(floorPages), latency: floorPages.latency.exact, runs: floorRuns.map(rps) },
        ratio: pageRatio,
        seconds,
      },
      scan: {
        ms: scanMs,
        cpuMs: scanCpuMs,
        runs: scans.map(({ ms, cpuMs }) => ({ ms, cpuMs })),
        floorMs: hashMs,
        floorCpuMs: hashCpuMs,
        floorRuns: floors,
        ratio: scanRatio,
        coversMs,
      },
      memory: {
        peakBytes: afterScan.hwm,
        floorPeakBytes: floorMemory.hwm,
        restRssBytes: rest.rss,
        freshRssBytes: fresh.rss,
        rssBeforeSetupBytes: server.rssBeforeSetup,
        floorRssBytes: floorMemory.rss,
        serverStartMs: server.startMs,
      },
    });
  } finally {
    await server.stop();
  }

  if (!values['skip-start'] && !pagesOnly) {
    const start: StartFigures = await measureStart();
    rows.push({
      measure: '`npm start` to /health 200, nothing changed',
      value: `${(start.npmStartMs / 1000).toFixed(2)} s`,
      floor: `${(start.nodeServeMs / 1000).toFixed(2)} s (node dist/cli.js serve alone)`,
      ratio: '',
      goal: '< 2 s',
      met: start.npmStartMs < 2000,
    });
    figures.start = start;
  }

  const loadAfter = load();
  figures.loadAfter = loadAfter;
  printTable(rows);
  console.log(`load average before ${loadBefore}, after ${loadAfter} (${os.availableParallelism()} CPUs, shared)`);
  if (typeof values.json === 'string') writeFileSync(values.json, JSON.stringify(figures, null, 2));
}

function printTable(rows: readonly Row[]): void {
  const head: Row = { measure: 'measure', value: 'from outside', floor: 'floor, same run', ratio: 'ratio', goal: 'goal' };
  const cells = (r: Row) => [r.measure, r.value, r.floor, r.ratio, r.met === undefined ? r.goal : `${r.goal} ${r.met ? '✓' : '✗'}`];
  console.log(`\n| ${cells(head).join(' | ')} |`);
  console.log(
    `|${cells(head)
      .map(() => '---')
      .join('|')}|`,
  );
  for (const r of rows) console.log(`| ${cells(r).join(' | ')} |`);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await run();
