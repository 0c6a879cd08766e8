/**
 * `npm run bench`: speed as users see it (docs/benchmarks.md). The server runs as users run it
 * (`node dist/cli.js serve`, its own process, temp data folder, default config but rate limiting off) and is driven
 * over HTTP on loopback; every figure is printed beside a floor measured in the same run, with the load average
 * (os.loadavg()) before and after it, the machine (cores, Node), the commit and wrk's version.
 *
 * HTTP load: wrk (bench/wrk.ts), its own process, 2 threads, 20 connections, 2 s of unmeasured load then `--seconds`
 * measured, server and floor alternately twice each (the machine's load drifts), the better run of each side. A run
 * with a non-2xx answer or a socket error makes its figure invalid (no rate, the errors printed). The floor is a bare
 * node:http server in its own process sending the same bytes with fs.readFile on each request
 * (bench/floors/page-server.mjs): the corpus's page images for page serving, the server's own answer, saved once,
 * for the others. The page floor is the client's ceiling: what wrk reaches on this machine against the cheapest
 * server there is; no rate of the bench can be read beyond it.
 *  - page serving: `GET /books/{id}/pages/1`, original bytes, a random CBZ each request, JWT;
 *  - with `--only pages`, that alone; otherwise also, after the admin finished the first book of every other series:
 *    `GET /books/on-deck?pageSize=50`, `GET /series?pageSize=50`, `POST /series/list?pageSize=50` with a 3-leaf
 *    condition (50 of 200 series at 2,000 books), `POST /series/search?pageSize=50` "series" (every series matches,
 *    all ranked), and cached resized pages (`GET /books/{id}/pages/2?width=800&format=webp`, a random one of 100
 *    books each request, each resized once before);
 *  - the four lists again as two readers the bench creates, one unrestricted and one restricted by library, age and
 *    sharing labels at once (issue 36; bench/access.ts), alternately, with restricted req/s over unrestricted req/s
 *    (goal ≥ 1/1.2);
 *  - initial scan: clock from `POST /libraries` to the scan task's end (polled every 50 ms), three first scans each
 *    on a fresh server, against read + SHA-256 of the same files in 2 worker threads with 1 MiB reads
 *    (bench/floors/hash-floor.mjs: before, between and after the scans, after one that warms the page cache); also
 *    both in CPU time; each run printed with the load average, and the best and the median;
 *  - peak RSS: VmHWM of the server's process after the scan and its follow-up cover tasks, against the bare
 *    node:http server's VmHWM after its page load;
 *  - RSS of the freshly started server at rest, 15 s after the admin's creation (no library; V8's memory reducer
 *    compacts an idle heap some seconds after start), and earlier: 1 s after the admin's creation, and 1 s after
 *    its first `/health` 200 before any other request (creating the admin hashes a password with argon2);
 *  - `npm start` to `/health` 200 with nothing changed since the last build (bench/start-time.ts).
 * Corpus (bench/user-corpus.ts): 200 series × 10 books of issue 22's shape, cached under the temp folder;
 * `--books 10000` (or BENCH_BOOKS=10000) uses 1,000 series of the same. `--seconds N` per measured load (default 10);
 * `--json FILE` also writes every figure as JSON; `--only pages` measures page serving alone, `--only lists` the lists
 * alone (as the admin against their floors, and as the two readers); with either, the scan still fills the library,
 * once, untimed, for quick iterations; `--skip-start` leaves out `npm start`.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ACCESS_SLOWDOWN_LIMIT, measureAccess, setUpReaders, type AccessFigure, type ListLoad } from './access.js';
import { measureStart, type StartFigures } from './start-time.js';
import { freePort, processMemory, repoRoot, sleep, startServerProcess, type ServerProcess } from './server-process.js';
import { ensureUserCorpus, ISSUE_SHAPE } from './user-corpus.js';
import { bestOf, NOT_FOUND, requireWrk, runWrk, type Side, type WrkRequest, type WrkResult } from './wrk.js';

/**
 * When a fresh server's memory is taken "at rest": V8's memory reducer compacts an idle heap some seconds after
 * the allocations of a start stop (a fresh server measured 101–107 MB at 1 s, ~94 MB at 15 s: bench notes).
 */
const REST_MS = 15_000;
/** wrk's shape for every HTTP measure. */
const THREADS = 2;
const CONNECTIONS = 20;
const WARMUP_SECONDS = 2;
/** Server and floor alternately, this many times each. */
const ROUNDS = 2;
/** First scans timed, each on a fresh server. */
const SCANS = 3;
/** Books whose resized page is measured (each resized once before, so the measure reads the cache). */
const RESIZED_BOOKS = 100;
const LIST_P95_GOAL_MS = 25;
const PAGE_RATIO_GOAL = 0.6;

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const loadText = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds2 = (ms: number) => (ms / 1000).toFixed(2);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Load {
  before: number[];
  after: number[];
}

/** A row of the scan / memory / start table. */
interface Row {
  measure: string;
  value: string;
  floor: string;
  ratio: string;
  goal: string;
  met?: boolean;
  load?: Load;
}

interface HttpFigure {
  key: string;
  measure: string;
  requests: number;
  server: Side;
  floor: Side;
  /** server / floor req/s; null when either side is invalid. */
  ratio: number | null;
  /**
   * CPU time (every thread) per answered request, µs, the cheaper run of each side (its warm-up included): what a
   * request costs the process, which moves less with other load on the machine than req/s does.
   */
  cpuUsPerRequest: { server: number; floor: number };
  goal: string;
  met?: boolean;
  load: Load;
}

interface HttpMeasure {
  key: string;
  measure: string;
  /** Sent to the server; the floor gets the same methods and bodies at `/p/{index}`. */
  requests: WrkRequest[];
  /** What the floor answers to `/p/{index}`: file `index` modulo their number. */
  floorFiles: string[];
  goal: (server: Side, floor: Side, ratio: number | null) => { goal: string; met?: boolean };
}

interface Timed {
  ms: number;
  cpuMs: number;
  load: Load;
}

interface ScanRun extends Timed {
  /** performance.now() when `POST /libraries` was sent. */
  clock: number;
}

function machine(wrk: string) {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    /** Files changed in the checkout beside the commit (the figures may be of code that is not committed). */
    uncommitted: git(['status', '--porcelain']).split('\n').filter(Boolean).length,
    wrk,
  };
}

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

/** The bare node:http floor (bench/floors/page-server.mjs) serving `files`, in its own process. */
async function startFloor(files: readonly string[]): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const listFile = path.join(os.tmpdir(), `colophon-bench-floor-${process.pid}-${port}.txt`);
  writeFileSync(listFile, files.join('\n'));
  removeOnExit(listFile);
  const child = spawn(process.execPath, [path.join(repoRoot, 'bench/floors/page-server.mjs'), String(port), listFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(listFile, { force: true });
    },
  };
}

const sideText = (s: Side) => (s.valid ? `${int(s.rps)} req/s, p50 ${s.p50} ms, p95 ${s.p95} ms` : `INVALID: ${s.problem}`);

/** Server and floor under the same wrk load, alternately, ROUNDS times each; the floor's VmHWM/RSS after its load. */
async function measureHttp(
  m: HttpMeasure,
  server: ServerProcess,
  seconds: number,
): Promise<{ figure: HttpFigure; floorMemory: { rss: number; hwm: number } }> {
  const load: Load = { before: os.loadavg(), after: [] };
  console.log(`\n${m.measure} (${m.requests.length} distinct requests) — load average ${loadText(load.before)}`);
  const floor = await startFloor(m.floorFiles);
  const serverRuns: WrkResult[] = [];
  const floorRuns: WrkResult[] = [];
  const cpu = { server: [] as number[], floor: [] as number[] };
  /** One wrk run against `pid`; its CPU time per answered request (µs, warm-up included) added to `into`. */
  const metered = async (pid: number, into: number[], run: () => Promise<WrkResult>) => {
    const before = processCpuMs(pid);
    const result = await run();
    const requests = result.requests + (result.warmup?.requests ?? 0);
    if (requests > 0) into.push(((processCpuMs(pid) - before) * 1000) / requests);
    return result;
  };
  const common = { connections: CONNECTIONS, threads: THREADS, seconds, warmupSeconds: WARMUP_SECONDS };
  const floorRequests = m.requests.map((r, i) => ({ ...r, path: `/p/${i}` }));
  const show = (who: string, r: WrkResult) =>
    console.log(
      `  ${who}: ${r.valid ? `${int(r.rps)} req/s, p50 ${r.latency.p50} ms, p95 ${r.latency.p95} ms, p99 ${r.latency.p99} ms` : `INVALID: ${r.problem}`} (load ${loadText(r.load.before)} → ${loadText(r.load.after)})`,
    );
  let floorMemory: { rss: number; hwm: number };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      serverRuns.push(
        await metered(server.pid, cpu.server, () =>
          runWrk({ base: server.base, requests: m.requests, headers: { Authorization: `Bearer ${server.token}` }, ...common }),
        ),
      );
      show('server', serverRuns.at(-1)!);
      floorRuns.push(await metered(floor.pid, cpu.floor, () => runWrk({ base: floor.base, requests: floorRequests, ...common })));
      show('floor ', floorRuns.at(-1)!);
    }
    floorMemory = processMemory(floor.pid);
  } finally {
    await floor.stop();
  }
  load.after = os.loadavg();
  const s = bestOf(serverRuns);
  const f = bestOf(floorRuns);
  const ratio = s.valid && f.valid ? s.rps / f.rps : null;
  // The cheaper run of each side: the first run of the server also learns where each book's pages lie.
  const cheapest = (runs: number[]) => (runs.length ? Math.min(...runs) : 0);
  const cpuUsPerRequest = { server: cheapest(cpu.server), floor: cheapest(cpu.floor) };
  console.log(
    `  CPU per request, the cheaper run: server ${cpuUsPerRequest.server.toFixed(0)} µs (${cpu.server.map((c) => c.toFixed(0)).join(', ')}), floor ${cpuUsPerRequest.floor.toFixed(0)} µs (${cpu.floor.map((c) => c.toFixed(0)).join(', ')}); floor ÷ server ${(cpuUsPerRequest.floor / cpuUsPerRequest.server).toFixed(2)}`,
  );
  return {
    figure: {
      key: m.key,
      measure: m.measure,
      requests: m.requests.length,
      server: s,
      floor: f,
      ratio,
      cpuUsPerRequest,
      ...m.goal(s, f, ratio),
      load,
    },
    floorMemory,
  };
}

/** CPU time (user + system, every thread) a process has used, in ms (Linux: /proc/<pid>/stat, 100 ticks a second). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A library's first scan on `server`, timed from `POST /libraries` to the task's end (polled every 50 ms). */
async function timeFirstScan(server: ServerProcess, library: string, books: number): Promise<ScanRun> {
  const before = os.loadavg();
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
  return { clock, ms, cpuMs, load: { before, after: os.loadavg() } };
}

/** The bench's own temp files go when it ends, however it ends. */
function removeOnExit(file: string): void {
  process.once('exit', () => rmSync(file, { force: true, recursive: true }));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The answer of `GET`/`POST base + url`, which must be 200, as bytes. */
async function answer(server: ServerProcess, request: WrkRequest): Promise<Buffer> {
  const response = await fetch(server.base + request.path, {
    method: request.method ?? 'GET',
    headers: { authorization: `Bearer ${server.token}`, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    body: request.body,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200)
    throw new Error(`${request.method ?? 'GET'} ${request.path}: ${response.status} ${bytes.toString().slice(0, 300)}`);
  return bytes;
}

interface BookRow {
  id: string;
  series_id: string;
  number: string | null;
  format: string | null;
  page_count: number;
}

/** The lists a user browses, measured as the admin (against floors) and as two readers (bench/access.ts). */
const LISTS: ListLoad[] = [
  { key: 'onDeck', measure: 'GET /books/on-deck?pageSize=50', request: { path: '/api/v1/books/on-deck?pageSize=50' } },
  { key: 'series', measure: 'GET /series?pageSize=50', request: { path: '/api/v1/series?pageSize=50' } },
  {
    key: 'filter',
    measure: 'POST /series/list?pageSize=50, 3-leaf condition',
    request: {
      method: 'POST',
      path: '/api/v1/series/list?pageSize=50',
      body: JSON.stringify({
        condition: {
          allOf: [
            { publisher: { operator: 'is', value: 'Bench' } },
            { language: { operator: 'is', value: 'en' } },
            { anyOf: [{ author: { operator: 'is', value: 'Bench Writer' } }] },
          ],
        },
      }),
    },
  },
  {
    key: 'search',
    measure: 'POST /series/search?pageSize=50 "series"',
    request: { method: 'POST', path: '/api/v1/series/search?pageSize=50', body: JSON.stringify({ query: 'series' }) },
  },
];

/** For On Deck, started series: the first book of every other series, which the admin (and the readers) finish. */
function onDeckBooks(books: readonly BookRow[]): BookRow[] {
  const firstBooks = new Map<string, BookRow>();
  const num = (b: BookRow) => Number(b.number ?? Infinity);
  for (const b of books) {
    const known = firstBooks.get(b.series_id);
    if (!known || num(b) < num(known)) firstBooks.set(b.series_id, b);
  }
  return [...firstBooks.values()].filter((_, i) => i % 2 === 0);
}

/**
 * The measures beside page serving: lists a user browses (as the admin), and (unless `--only lists`) resized pages
 * read from the server's cache.
 */
async function browseMeasures(
  server: ServerProcess,
  books: readonly BookRow[],
  dir: string,
  listsOnly: boolean,
  log: (line: string) => void,
): Promise<HttpMeasure[]> {
  // On Deck needs started series: the admin finished the first book of every other series.
  const finished = onDeckBooks(books);
  for (const b of finished) await server.call('POST', `/books/${b.id}/read`);
  log(`the admin finished the first book of ${finished.length} of ${new Set(books.map((b) => b.series_id)).size} series (for On Deck)`);

  const listGoal = (s: Side) => ({ goal: `p95 < ${LIST_P95_GOAL_MS} ms`, ...(s.valid ? { met: s.p95 < LIST_P95_GOAL_MS } : {}) });
  const measures: HttpMeasure[] = [];
  for (const list of LISTS) {
    // A list that finds nothing is cheap: each measured list must have a full first page.
    const bytes = await answer(server, list.request);
    const page = JSON.parse(bytes.toString()) as { total?: number; data?: unknown[] };
    if (!page.data?.length || page.data.length < Math.min(50, page.total ?? 0))
      throw new Error(`${list.measure}: ${page.data?.length ?? 0} on the first page of ${page.total}`);
    log(`${list.measure}: total ${page.total}, ${page.data.length} on the page, ${bytes.length} bytes`);
    const file = path.join(dir, `${list.key}.json`);
    writeFileSync(file, bytes);
    measures.push({ key: list.key, measure: list.measure, requests: [list.request], floorFiles: [file], goal: listGoal });
  }
  if (listsOnly) return measures;

  // Cached resized pages: page 2 of RESIZED_BOOKS CBZ spread over the library, each resized once now.
  const cbz = books.filter((b) => b.format === 'cbz' && b.page_count >= 2);
  const step = Math.max(1, Math.floor(cbz.length / RESIZED_BOOKS));
  const resized = cbz.filter((_, i) => i % step === 0).slice(0, RESIZED_BOOKS);
  const requests = resized.map((b) => ({ path: `/api/v1/books/${b.id}/pages/2?width=800&format=webp` }));
  const files: string[] = [];
  for (let i = 0; i < requests.length; i++) {
    const file = path.join(dir, `resized-${i}.webp`);
    writeFileSync(file, await answer(server, requests[i]!));
    files.push(file);
  }
  log(`${requests.length} pages resized to WebP width 800 and cached`);
  measures.push({
    key: 'resized',
    measure: `GET /books/{id}/pages/2?width=800&format=webp, cached, ${requests.length} books`,
    requests,
    floorFiles: files,
    goal: () => ({ goal: '' }),
  });
  return measures;
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
  let wrkVersion: string;
  try {
    wrkVersion = requireWrk();
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
    if ((err as Error).message === NOT_FOUND) return;
    throw err;
  }
  // `--only pages`: the page-serving row alone; `--only lists`: the lists, as the admin against their floors and as
  // the restricted and unrestricted readers (bench/access.ts). The scan still runs, untimed, to fill the library.
  const only = values.only === undefined ? null : String(values.only);
  if (only !== null && only !== 'pages' && only !== 'lists') throw new Error(`--only ${only}: \`--only pages\` or \`--only lists\``);
  const pagesOnly = only === 'pages';
  const listsOnly = only === 'lists';
  /** Only some of the HTTP loads: no timed scans, memory or start-up. */
  const partial = pagesOnly || listsOnly;
  const books = Number(values.books ?? process.env.BENCH_BOOKS ?? 2000);
  const seconds = Number(values.seconds);
  if (!(seconds > 0)) throw new Error(`--seconds ${String(values.seconds)}: a number of seconds`);
  const shape = { ...ISSUE_SHAPE, series: Math.round(books / ISSUE_SHAPE.perSeries) };
  const host = machine(wrkVersion);
  const loadBefore = os.loadavg();
  console.log(
    `Colophon from outside: ${host.cores} cores (${host.cpu}), Node ${host.node}, commit ${host.commit}` +
      `${host.uncommitted ? ` + ${host.uncommitted} uncommitted files` : ''}, ${host.wrk}; load average ${loadText(loadBefore)}`,
  );

  // What `npm start` would build, built first (its cost is not part of any figure).
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-if-stale.mjs'), ...(partial ? ['server'] : [])], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  const corpus = await ensureUserCorpus(shape, console.log);
  console.log(
    `corpus: ${corpus.books} books (${corpus.cbz} CBZ, ${corpus.epub} EPUB, ${corpus.pdf} PDF) in ${shape.series} series, ${(corpus.bytes / 1e9).toFixed(2)} GB, pages ~${(corpus.pageBytes / 1024).toFixed(0)} KB, at ${corpus.library}`,
  );
  const rows: Row[] = [];
  const http: HttpFigure[] = [];
  const access: AccessFigure[] = [];
  const figures: Record<string, unknown> = {
    machine: host,
    options: { books, seconds, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS, only },
    loadBefore,
    corpus,
  };
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-outside-'));
  removeOnExit(workDir);

  // Scan floor: read + SHA-256 of the same files; a first run, not counted, warms the page cache.
  const files = listFiles(corpus.library);
  const listFile = path.join(workDir, 'files.txt');
  writeFileSync(listFile, files.join('\n'));
  const floors: Timed[] = [];
  const timeFloor = async () => {
    const before = os.loadavg();
    const f = await hashFloor(listFile);
    floors.push({ ms: f.ms, cpuMs: f.cpuMs, load: { before, after: os.loadavg() } });
    console.log(
      `scan floor ${floors.length}: ${seconds2(f.ms)} s, CPU ${seconds2(f.cpuMs)} s (load ${loadText(before)} → ${loadText(os.loadavg())})`,
    );
  };
  const scans: ScanRun[] = [];
  const showScan = (r: ScanRun, where: string) =>
    console.log(
      `first scan ${scans.length}/${SCANS} (${where}): ${seconds2(r.ms)} s, CPU ${seconds2(r.cpuMs)} s (load ${loadText(r.load.before)} → ${loadText(r.load.after)})`,
    );
  // The first scan SCANS times, each on a fresh server, floors before, between and after (the machine's speed
  // drifts): all but the last on a server of their own, the last on the server the rest of the figures come from.
  if (!partial) {
    await hashFloor(listFile);
    await timeFloor();
    for (let i = 0; i < SCANS - 1; i++) {
      const alone = await startServerProcess();
      try {
        await sleep(REST_MS); // as long as the last one waits for its memory at rest
        scans.push(await timeFirstScan(alone, corpus.library, corpus.books));
        showScan(scans.at(-1)!, 'a fresh server');
      } finally {
        await alone.stop();
      }
      await timeFloor();
    }
  }

  // The server, fresh: its resting memory, then the timed first scan and the cover tasks that follow it.
  const server = await startServerProcess();
  try {
    await sleep(1000);
    const fresh = processMemory(server.pid);
    await sleep(REST_MS - 1000);
    const rest = processMemory(server.pid);
    const main = await timeFirstScan(server, corpus.library, corpus.books);
    const clock = main.clock;
    if (!partial) {
      scans.push(main);
      showScan(main, 'the server measured below');
    } else console.log(`library scanned in ${seconds2(main.ms)} s (not measured against its floor with --only ${only})`);
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
    if (!partial) await timeFloor(); // after the scan too: the machine's load drifts

    const bookRows: BookRow[] = [];
    for (let page = 1; ; page++) {
      const list = (await server.call<{ data: BookRow[] }>('GET', `/books?pageSize=500&page=${page}`)).body;
      bookRows.push(...list.data);
      if (list.data.length < 500) break;
    }
    const cbzIds = bookRows.filter((b) => b.format === 'cbz').map((b) => b.id);

    // Page serving first (before the browse measures' progress writes), its floor the client's ceiling.
    let floorMemory = { rss: 0, hwm: 0 };
    if (!listsOnly) {
      const pages = await measureHttp(
        {
          key: 'pages',
          measure: 'GET /books/{id}/pages/1, original bytes, a random CBZ each request',
          requests: cbzIds.map((id) => ({ path: `/api/v1/books/${id}/pages/1` })),
          floorFiles: corpus.floorPages,
          goal: (_s, _f, ratio) => ({ goal: `≥ ${PAGE_RATIO_GOAL} × floor`, ...(ratio === null ? {} : { met: ratio >= PAGE_RATIO_GOAL }) }),
        },
        server,
        seconds,
      );
      http.push(pages.figure);
      floorMemory = pages.floorMemory;
      const ceiling = pages.figure.floor;
      console.log(
        `client ceiling: wrk (${THREADS} threads, ${CONNECTIONS} connections) against the bare page floor: ${sideText(ceiling)} — no rate below can exceed what the client reaches here`,
      );
      figures.client = {
        tool: 'wrk',
        version: host.wrk,
        threads: THREADS,
        connections: CONNECTIONS,
        ceiling: { valid: ceiling.valid, rps: ceiling.rps, p50: ceiling.p50, p95: ceiling.p95, p99: ceiling.p99 },
      };
    }

    if (!pagesOnly) {
      console.log('');
      for (const m of await browseMeasures(server, bookRows, workDir, listsOnly, (line) => console.log(line)))
        http.push((await measureHttp(m, server, seconds)).figure);

      // The same lists as a restricted reader beside an unrestricted one (issue 36), after the admin's figures:
      // the series' sharing labels and the readers' progress are written first.
      console.log('');
      const readers = await setUpReaders(
        server,
        onDeckBooks(bookRows).map((b) => b.id),
        (line) => console.log(line),
      );
      const wrkShape = { threads: THREADS, connections: CONNECTIONS, seconds, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS };
      for (const list of LISTS) access.push(await measureAccess(server, readers, list, wrkShape, (line) => console.log(line)));
      figures.access = {
        limit: ACCESS_SLOWDOWN_LIMIT,
        readers: { unrestricted: readers.unrestricted.username, restricted: readers.restricted.username },
        rules: readers.rules,
        series: readers.series,
        summary: readers.summary,
        lists: Object.fromEntries(access.map((a) => [a.key, a])),
      };
    }

    if (!partial) {
      const scanMs = scans.map((r) => r.ms);
      const scanCpu = scans.map((r) => r.cpuMs);
      const floorMs = floors.map((f) => f.ms);
      const floorCpu = floors.map((f) => f.cpuMs);
      const best = Math.min;
      const scanLoad: Load = { before: scans[0]!.load.before, after: scans.at(-1)!.load.after };
      const scanRatio = best(...scanMs) / best(...floorMs);
      rows.push({
        measure: `initial scan, ${corpus.books} books (POST /libraries → task end), best / median of ${scans.length}`,
        value: `${seconds2(best(...scanMs))} / ${seconds2(median(scanMs))} s (${Math.round((corpus.books * 1000) / best(...scanMs))} books/s; runs ${scanMs.map(seconds2).join(', ')})`,
        floor: `${seconds2(best(...floorMs))} / ${seconds2(median(floorMs))} s (read + SHA-256, 2 threads, 1 MiB reads; runs ${floorMs.map(seconds2).join(', ')})`,
        ratio: `${scanRatio.toFixed(2)} / ${(median(scanMs) / median(floorMs)).toFixed(2)}`,
        goal: '≤ 1.5 × floor',
        met: scanRatio <= 1.5,
        load: scanLoad,
      });
      rows.push({
        measure: '  the same in CPU time (all threads; steadier on a shared machine)',
        value: `${seconds2(best(...scanCpu))} / ${seconds2(median(scanCpu))} s (runs ${scanCpu.map(seconds2).join(', ')})`,
        floor: `${seconds2(best(...floorCpu))} / ${seconds2(median(floorCpu))} s (runs ${floorCpu.map(seconds2).join(', ')})`,
        ratio: `${(best(...scanCpu) / best(...floorCpu)).toFixed(2)} / ${(median(scanCpu) / median(floorCpu)).toFixed(2)}`,
        goal: '',
        load: scanLoad,
      });
      rows.push({
        measure: `peak RSS (VmHWM), scan + cover tasks (${(coversMs / 1000).toFixed(1)} s)`,
        value: mb(afterScan.hwm),
        floor: `${mb(floorMemory.hwm)} (bare node:http server)`,
        ratio: (afterScan.hwm / floorMemory.hwm).toFixed(2),
        goal: books >= 10_000 ? '< 300 MB at 10,000 books' : '< 300 MB (at 10,000 books)',
        met: afterScan.hwm < 300 * MB,
      });
      rows.push({
        measure: `RSS of a freshly started server at rest, empty library (${REST_MS / 1000} s after the admin's creation; 1 s after it; before any request)`,
        value: `${mb(rest.rss)} (${mb(fresh.rss)}; ${mb(server.rssBeforeSetup)})`,
        floor: `${mb(floorMemory.rss)} (bare node:http server, after its load)`,
        ratio: (rest.rss / floorMemory.rss).toFixed(2),
        goal: '< 100 MB',
        met: rest.rss < 100 * MB,
      });
      const summary = (xs: number[]) => ({ best: best(...xs), median: median(xs) });
      figures.scan = {
        runs: scans.map(({ ms, cpuMs, load }) => ({ ms, cpuMs, load })),
        floorRuns: floors,
        ms: summary(scanMs),
        cpuMs: summary(scanCpu),
        floorMs: summary(floorMs),
        floorCpuMs: summary(floorCpu),
        ratio: { best: scanRatio, median: median(scanMs) / median(floorMs) },
        cpuRatio: { best: best(...scanCpu) / best(...floorCpu), median: median(scanCpu) / median(floorCpu) },
        coversMs,
      };
      figures.memory = {
        peakBytes: afterScan.hwm,
        floorPeakBytes: floorMemory.hwm,
        restRssBytes: rest.rss,
        freshRssBytes: fresh.rss,
        rssBeforeSetupBytes: server.rssBeforeSetup,
        floorRssBytes: floorMemory.rss,
        serverStartMs: server.startMs,
      };
    }
  } finally {
    await server.stop();
  }

  if (!values['skip-start'] && !partial) {
    const before = os.loadavg();
    const start: StartFigures = await measureStart();
    rows.push({
      measure: '`npm start` to /health 200, nothing changed (median of 3)',
      value: `${seconds2(start.npmStartMs)} s (runs ${start.npmStartRuns.map(seconds2).join(', ')})`,
      floor: `${seconds2(start.nodeServeMs)} s (node dist/cli.js serve alone)`,
      ratio: '',
      goal: '< 2 s',
      met: start.npmStartMs < 2000,
      load: { before, after: os.loadavg() },
    });
    figures.start = start;
  }

  const loadAfter = os.loadavg();
  figures.http = Object.fromEntries(http.map((h) => [h.key, h]));
  figures.loadAfter = loadAfter;
  console.log(
    `\nColophon from outside, ${corpus.books} books — ${host.cores} cores (${host.cpu}), Node ${host.node}, commit ${host.commit}` +
      `${host.uncommitted ? ` + ${host.uncommitted} uncommitted files` : ''}`,
  );
  printHttpTable(http, seconds);
  if (access.length) printAccessTable(access, seconds);
  const ceiling = http.find((h) => h.key === 'pages')?.floor;
  if (ceiling)
    console.log(
      `\nclient ceiling (wrk against the bare page floor, this run): ${sideText(ceiling)}; no rate above can be read beyond what the client reaches there`,
    );
  if (rows.length) printTable(rows);
  if (scans.length) {
    const each = (runs: readonly Timed[]) =>
      runs
        .map(
          (r, i) =>
            `${i + 1}) ${seconds2(r.ms)} s, CPU ${seconds2(r.cpuMs)} s, load ${loadText(r.load.before)} → ${loadText(r.load.after)}`,
        )
        .join('; ');
    console.log(`\nfirst scans: ${each(scans)}`);
    console.log(`scan floors: ${each(floors)}`);
  }
  console.log(`\nload average before ${loadText(loadBefore)}, after ${loadText(loadAfter)} (1, 5, 15 min; ${host.cores} cores)`);
  const invalid = [
    ...http.filter((h) => !h.server.valid || !h.floor.valid).map((h) => h.key),
    ...access.filter((a) => !a.unrestricted.valid || !a.restricted.valid).map((a) => `access.${a.key}`),
  ];
  if (invalid.length) {
    console.log(`INVALID figures (non-2xx answers or socket errors): ${invalid.join(', ')}`);
    process.exitCode = 1;
  }
  if (typeof values.json === 'string') writeFileSync(values.json, JSON.stringify(figures, null, 2));
}

function markdown(head: readonly string[], body: ReadonlyArray<readonly string[]>): void {
  console.log(`\n| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const cells of body) console.log(`| ${cells.join(' | ')} |`);
}

const loadCell = (l?: Load) => (l ? `${l.before[0]!.toFixed(2)} → ${l.after[0]!.toFixed(2)}` : '');
const goalCell = (goal: string, met?: boolean) => (met === undefined ? goal : `${goal} ${met ? '✓' : '✗'}`);

function printHttpTable(http: readonly HttpFigure[], seconds: number): void {
  console.log(
    `\nHTTP, wrk ${THREADS} threads × ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${seconds} s, server and floor alternately ${ROUNDS}× each, the better run of each (all runs in brackets); floor: bare node:http + fs.readFile of the same bytes`,
  );
  const rate = (s: Side) => (s.valid ? `${int(s.rps)} (${s.runs.map((r) => int(r.rps)).join(', ')})` : `INVALID: ${s.problem}`);
  const latency = (s: Side) => (s.valid ? `${s.p50} / ${s.p95}` : '—');
  markdown(
    [
      'measure',
      'server req/s',
      'server p50 / p95 ms',
      'floor req/s',
      'floor p50 / p95 ms',
      'ratio',
      'CPU µs per request: server / floor (floor ÷ server)',
      'goal',
      'load (1 min) before → after',
    ],
    http.map((h) => [
      h.measure,
      rate(h.server),
      latency(h.server),
      rate(h.floor),
      latency(h.floor),
      h.ratio === null ? '—' : h.ratio.toFixed(2),
      `${h.cpuUsPerRequest.server.toFixed(0)} / ${h.cpuUsPerRequest.floor.toFixed(0)} (${(h.cpuUsPerRequest.floor / h.cpuUsPerRequest.server).toFixed(2)})`,
      goalCell(h.goal, h.met),
      loadCell(h.load),
    ]),
  );
}

function printAccessTable(access: readonly AccessFigure[], seconds: number): void {
  console.log(
    `\nThe same lists as two readers (JWT), unrestricted and restricted (library + age + sharing labels, bench/access.ts), wrk ${THREADS} threads × ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${seconds} s, alternately ${ROUNDS}× each, the better run of each (all runs in brackets)`,
  );
  const rate = (s: Side) => (s.valid ? `${int(s.rps)} (${s.runs.map((r) => int(r.rps)).join(', ')})` : `INVALID: ${s.problem}`);
  const latency = (s: Side) => (s.valid ? `${s.p50} / ${s.p95}` : '—');
  const ratio = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  markdown(
    [
      'measure, as a reader',
      'unrestricted req/s',
      'unrestricted p50 / p95 ms',
      'restricted req/s',
      'restricted p50 / p95 ms',
      'total seen, unrestricted → restricted',
      'restricted / unrestricted req/s',
      'restricted / unrestricted p50 / p95',
      'goal',
      'load (1 min) before → after',
    ],
    access.map((a) => [
      a.measure,
      rate(a.unrestricted),
      latency(a.unrestricted),
      rate(a.restricted),
      latency(a.restricted),
      `${a.totals.unrestricted} → ${a.totals.restricted}`,
      ratio(a.rpsRatio),
      a.p50Ratio === null ? '—' : `${ratio(a.p50Ratio)} / ${ratio(a.p95Ratio)}`,
      goalCell(a.goal, a.met),
      loadCell(a.load),
    ]),
  );
}

function printTable(rows: readonly Row[]): void {
  markdown(
    ['measure', 'from outside', 'floor, same run', 'ratio', 'goal', 'load (1 min) before → after'],
    rows.map((r) => [r.measure, r.value, r.floor, r.ratio, goalCell(r.goal, r.met), loadCell(r.load)]),
  );
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await run();
