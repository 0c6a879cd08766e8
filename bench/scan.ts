/**
 * Scan benchmark (SQLite). `npm run build && npx tsx bench/scan.ts`, or through `npm run bench`.
 *  1. Initial scan of 2,000 CBZ (20 pages): books/s, and the ratio of scan wall time to reading and SHA-256-ing
 *     the same files with the same worker threads in the same run (goal ≤ 1.5). Twice: with freshly started
 *     workers, whose V8 still compiles the analysis code, and again (library deleted and re-created) with the
 *     same workers warm.
 *  2. Normal rescan of an unchanged 10,000-book library: wall time (goal < 2 s) and ratio to stat()-ing every
 *     file the fastest way we know (goal ≤ 4): the faster of 64 callback stat() calls in flight and statSync() in
 *     a loop, the way the scanner's walk thread makes them.
 *  3. Peak RSS of the server process during the 10,000-book initial scan (goal < 300 MB), measured the way a
 *     user runs Colophon: `node dist/cli.js serve` in a child process, driven over HTTP, its RSS read from
 *     /proc (VmRSS sampled every 20 ms, and the kernel's high-water mark VmHWM), worker threads included.
 * The in-process measurements (1, 2) also run the compiled code from `dist/` when it exists, so that worker
 * threads do not load TypeScript through tsx; BENCH_SOURCE=1 runs `src/` instead.
 * Sizes: BENCH_SCAN_BOOKS (2000), BENCH_RESCAN_BOOKS (10000); BENCH_INITIAL_ONLY=1 runs measurement 1 alone,
 * BENCH_THREADS=1 adds the CPU time of every thread during measurement 1 (Linux). Corpora are kept under .bench/ and reused.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { stat as statCallback } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCorpus } from './corpus.js';
import { freePort } from './server-process.js';

type AppModule = typeof import('../src/app.js');
type ConfigModule = typeof import('../src/config/schema.js');
type ConnectionModule = typeof import('../src/db/connection.js');
type MigrateModule = typeof import('../src/db/migrate.js');
type MediaModule = typeof import('../src/media/index.js');
type WalkModule = typeof import('../src/libraries/scanning/scanner/walk.js');
type App = Awaited<ReturnType<AppModule['buildApp']>>;

interface Row {
  measure: string;
  value: string;
  goal: string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distCli = path.join(repoRoot, 'dist', 'cli.js');

/** Newest modification time under a folder (to warn when dist/ is older than src/). */
async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

async function loadCode(): Promise<{
  label: string;
  app: AppModule;
  config: ConfigModule;
  connection: ConnectionModule;
  migrate: MigrateModule;
  media: MediaModule;
  walk: WalkModule;
}> {
  const useDist = !process.env.BENCH_SOURCE && existsSync(distCli);
  const base = useDist ? '../dist' : '../src';
  if (useDist && (await newestMtime(path.join(repoRoot, 'src'))) > statSync(distCli).mtimeMs) {
    console.warn('warning: src/ is newer than dist/: run `npm run build` first, or these numbers measure old code');
  }
  return {
    label: useDist ? 'compiled dist/' : 'src/ through tsx',
    app: (await import(`${base}/app.js`)) as AppModule,
    config: (await import(`${base}/config/schema.js`)) as ConfigModule,
    connection: (await import(`${base}/db/connection.js`)) as ConnectionModule,
    migrate: (await import(`${base}/db/migrate.js`)) as MigrateModule,
    media: (await import(`${base}/media/index.js`)) as MediaModule,
    walk: (await import(`${base}/scanner/walk.js`)) as WalkModule,
  };
}

type Code = Awaited<ReturnType<typeof loadCode>>;

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';

async function createApp(code: Code): Promise<App> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-'));
  const config = code.config.ConfigSchema.parse({
    data_dir: dataDir,
    logging: { level: 'warn' },
    thumbnails: { pregenerate: false },
    tasks: { poll_interval_ms: 20 },
    auth: { jwt_secret: JWT_SECRET },
  });
  const database = code.connection.openDatabase(config);
  await code.migrate.migrateToLatest(database);
  const app = await code.app.buildApp({ config, database, logger: false });
  await app.ready();
  await app.background.start();
  return app;
}

async function scanOnce(
  app: App,
  libraryId: string,
  mode: 'normal' | 'deep' = 'normal',
): Promise<{ ms: number; cpuMs: number; mainCpuMs: number; result: Record<string, unknown> }> {
  const cpu = process.cpuUsage();
  const mainCpu = mainThreadCpuMs();
  const threadsBefore = allThreads();
  const started = performance.now();
  const { task } = await app.background.scans.requestScan(libraryId, mode, 'bench');
  for (;;) {
    const row = await app.background.queue.get(task.id);
    if (row && ['completed', 'failed', 'cancelled'].includes(row.status)) {
      if (row.status !== 'completed') throw new Error(`scan ${row.status}: ${row.error}`);
      printThreadCpu('scan', threadsBefore);
      return {
        ms: performance.now() - started,
        cpuMs: cpuMs(cpu),
        mainCpuMs: mainThreadCpuMs() - mainCpu,
        result: JSON.parse(row.result ?? '{}') as Record<string, unknown>,
      };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function listFiles(code: Code, root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const chunk of code.walk.walkLibrary(root)) for (const f of chunk) files.push(path.join(root, f.relPath));
  return files;
}

/** CPU time of this process (all threads, worker threads included) in ms since `from`. */
/**
 * CPU time of the main thread alone (Linux: /proc/self/task/<pid>/stat, in clock ticks of 10 ms; NaN elsewhere),
 * to tell the scanner's own work from the worker threads'.
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * BENCH_THREADS=1: CPU time of every thread of the process over one measurement (Linux), to tell the main
 * thread, the media workers and V8's/libuv's helper threads (GC, compilation, fs) apart.
 */
function printThreadCpu(label: string, before: Map<string, number>): void {
  if (!process.env.BENCH_THREADS) return;
  const lines = [...allThreads()].map(([thread, ms]) => ({ thread, ms: ms - (before.get(thread) ?? 0) })).filter((t) => t.ms > 0);
  console.log(`${label}, CPU ms by thread (${process.pid} is the main thread): ${lines.map((t) => `${t.thread} ${t.ms}`).join(', ')}`);
}

/** Thread id:name -> CPU ms, from /proc/self/task (empty where there is no /proc). */
function allThreads(): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid}:${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

function cpuMs(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/** Read + SHA-256 of every file in the media worker pool, as many in flight as the scanner keeps. */
async function hashAll(code: Code, files: readonly string[], threads: number): Promise<{ ms: number; cpuMs: number }> {
  const pool = new code.media.AnalysisPool({ threads });
  try {
    await Promise.all([pool.hash(files[0]!), pool.hash(files[1]!)]); // start the workers outside the measurement
    const cpu = process.cpuUsage();
    const threadsBefore = allThreads();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: threads * 2 }, async () => {
        while (next < files.length) await pool.hash(files[next++]!);
      }),
    );
    printThreadCpu('read + hash', threadsBefore);
    return { ms: performance.now() - started, cpuMs: cpuMs(cpu) };
  } finally {
    await pool.destroy();
  }
}

/**
 * One rescan baseline: stat() of every file with the callback API (cheaper per call than fs/promises) and
 * 64 calls in flight, as the in-process walk (walkLibrary) does. A slower baseline would flatter the ratio; the earlier one
 * (fs/promises, 32 at a time) is still printed for comparison with older numbers.
 */
async function statAllPromises(files: readonly string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < files.length; i += 32) await Promise.all(files.slice(i, i + 32).map((f) => stat(f)));
  return performance.now() - started;
}

async function statAll(files: readonly string[]): Promise<number> {
  const statFile = (file: string) => new Promise<void>((resolve, reject) => statCallback(file, (err) => (err ? reject(err) : resolve())));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < files.length) await statFile(files[next++]!);
    }),
  );
  return performance.now() - started;
}

/**
 * The same in blocking calls, one after the other, as the scanner's walk thread makes them (walk-thread.ts);
 * the rescan is compared with the faster of this and statAll.
 */
function statAllSync(files: readonly string[]): number {
  const started = performance.now();
  for (const file of files) statSync(file);
  return performance.now() - started;
}

/** VmRSS and VmHWM (peak) of a process, in bytes. */
function processMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * Starts the compiled server (`node dist/cli.js serve`) on a fresh data folder, creates the admin and a library
 * over HTTP, scans it, and reports the server's memory: at rest before the scan, and the peak during it.
 * Cover pre-generation (a separate task that starts when the scan ends) is off so that the number is the scan's.
 */
async function serverScanMemory(root: string, books: number): Promise<{ restMb: number; peakMb: number; ms: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-server-'));
  const port = await freePort();
  const configFile = path.join(dataDir, 'colophon.yaml');
  const config = {
    server: { host: '127.0.0.1', port },
    data_dir: dataDir,
    logging: { level: 'warn' },
    auth: { jwt_secret: JWT_SECRET },
    thumbnails: { pregenerate: false },
    tasks: { poll_interval_ms: 50 },
  };
  writeFileSync(configFile, JSON.stringify(config)); // JSON is YAML
  const child = spawn(process.execPath, [distCli, 'serve', '--config', configFile], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  let token = '';
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        if (attempt > 600 || child.exitCode !== null) throw new Error('the server did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    token = (
      await call<{ access_token: string }>('POST', '/api/v1/setup/initialize', {
        username: 'bench',
        email: 'bench@example.org',
        password: 'bench-password-1234',
      })
    ).access_token;
    const library = await call<{ id: string }>('POST', '/api/v1/libraries', { name: 'rss', path: root });
    await new Promise((r) => setTimeout(r, 500)); // let start-up garbage settle
    const rest = processMemory(child.pid!).rss;
    let peak = rest;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, processMemory(child.pid!).rss);
      } catch {
        // the process is gone; the error surfaces below
      }
    }, 20);
    const started = performance.now();
    try {
      await call('POST', `/api/v1/libraries/${library.id}/scan?mode=normal`);
      for (;;) {
        const status = await call<{ state: string; error: string | null; counters: { books_added: number } }>(
          'GET',
          `/api/v1/libraries/${library.id}/scan-status`,
        );
        if (status.state === 'completed') {
          if (status.counters.books_added !== books) throw new Error(`expected ${books} books, got ${JSON.stringify(status)}`);
          break;
        }
        if (status.state === 'failed' || status.state === 'cancelled') throw new Error(`scan ${status.state}: ${status.error}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      clearInterval(sampler);
    }
    const ms = performance.now() - started;
    peak = Math.max(peak, processMemory(child.pid!).hwm);
    return { restMb: rest / 1024 / 1024, peakMb: peak / 1024 / 1024, ms };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function run(): Promise<void> {
  const code = await loadCode();
  const threads = os.availableParallelism();
  const initialBooks = Number(process.env.BENCH_SCAN_BOOKS ?? 2000);
  const rescanBooks = Number(process.env.BENCH_RESCAN_BOOKS ?? 10000);
  const rows: Row[] = [];
  console.log(
    `code: ${code.label}; ${threads} CPUs; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const app = await createApp(code);
  try {
    // Warm the worker pool (thread start-up is not scanning): enough books that every worker gets some (the
    // scanner hands out up to 16 per task, and piscina starts a thread only when a task waits for one).
    const warm = await ensureCorpus({ out: path.resolve('.bench/corpus-warmup-64'), series: 1, books: 64, pages: 2 });
    const warmLib = await app.background.libraries.create({ name: 'warm-up', path: warm.root }, { isAdmin: true });
    await scanOnce(app, warmLib.id);

    // 1. Initial scan of 2,000 CBZ × 20 pages.
    const big = await ensureCorpus({
      out: path.resolve(`.bench/corpus-s100-b${initialBooks}-p20`),
      series: 100,
      books: initialBooks,
      pages: 20,
    });
    const bigFiles = await listFiles(code, big.root);
    const totalBytes = (await Promise.all(bigFiles.map((f) => stat(f)))).reduce((n, s) => n + s.size, 0);
    const hashes = [await hashAll(code, bigFiles, threads)]; // also warms the page cache for both measurements
    hashes.push(await hashAll(code, bigFiles, threads));
    const lib = await app.background.libraries.create({ name: 'initial', path: big.root }, { isAdmin: true });
    const initial = await scanOnce(app, lib.id);
    if (initial.result.books_added !== initialBooks)
      throw new Error(`expected ${initialBooks} books, got ${JSON.stringify(initial.result)}`);
    hashes.push(await hashAll(code, bigFiles, threads)); // between the scans too: the machine's load drifts
    // The same initial scan again (library deleted, created anew, its books all new) now that the workers' code
    // is optimised: the first one also pays V8 compiling the analysis code in each fresh worker, a fixed cost
    // per worker lifetime (about a second of CPU on helper threads) that read+hash, native code, hardly has.
    await app.background.libraries.delete(lib.id);
    const again = await app.background.libraries.create({ name: 'initial-again', path: big.root }, { isAdmin: true });
    const warmScan = await scanOnce(app, again.id);
    if (warmScan.result.books_added !== initialBooks)
      throw new Error(`expected ${initialBooks} books, got ${JSON.stringify(warmScan.result)}`);
    hashes.push(await hashAll(code, bigFiles, threads));
    const baseline = Math.min(...hashes.map((h) => h.ms));
    const baselineCpu = Math.min(...hashes.map((h) => h.cpuMs));
    rows.push({
      measure: `read + SHA-256 of the same files (${threads} worker threads, best of ${hashes.length})`,
      value: `${(baseline / 1000).toFixed(2)} s (${((totalBytes / 1024 / 1024 / baseline) * 1000).toFixed(0)} MB/s)`,
      goal: '',
    });
    for (const [label, scan] of [
      ['fresh workers', initial],
      ['workers warm, 2nd scan', warmScan],
    ] as const) {
      rows.push({
        measure: `initial scan, ${initialBooks} CBZ × 20 pages (${mb(totalBytes)}), ${label}`,
        value: `${(scan.ms / 1000).toFixed(2)} s, ${((initialBooks * 1000) / scan.ms).toFixed(0)} books/s`,
        goal: '',
      });
      rows.push({ measure: `  scan / read+hash ratio`, value: (scan.ms / baseline).toFixed(2), goal: '≤ 1.5' });
      // CPU time (all threads) says the same with less noise from other processes on a shared machine.
      rows.push({
        measure: '  CPU time: scan / read+hash',
        value: `${(scan.cpuMs / 1000).toFixed(2)} s / ${(baselineCpu / 1000).toFixed(2)} s = ${(scan.cpuMs / baselineCpu).toFixed(2)}`,
        goal: '',
      });
      rows.push({
        measure: '  of which the main thread (scanner, database, pool dispatch)',
        value: `${(scan.mainCpuMs / 1000).toFixed(2)} s`,
        goal: '',
      });
    }

    // 2. Normal rescan of an unchanged 10,000-book library (BENCH_INITIAL_ONLY=1 stops after the initial scan).
    if (process.env.BENCH_INITIAL_ONLY) {
      printRows(rows);
      return;
    }
    const many = await ensureCorpus({
      out: path.resolve(`.bench/corpus-s500-b${rescanBooks}-p2`),
      series: 500,
      books: rescanBooks,
      pages: 2,
      width: 64,
      height: 96,
    });
    const manyFiles = await listFiles(code, many.root);
    const manyLib = await app.background.libraries.create({ name: 'rescan', path: many.root }, { isAdmin: true });
    const first = await scanOnce(app, manyLib.id);
    rows.push({
      measure: `initial scan of ${rescanBooks} books (2 small pages each)`,
      value: `${(first.ms / 1000).toFixed(2)} s, ${((rescanBooks * 1000) / first.ms).toFixed(0)} books/s`,
      goal: '',
    });
    const rescans: number[] = [];
    const stats: number[] = [];
    const callbackStats: number[] = [];
    const syncStats: number[] = [];
    const promiseStats: number[] = [];
    for (let i = 0; i < 3; i++) {
      callbackStats.push(await statAll(manyFiles));
      syncStats.push(statAllSync(manyFiles));
      stats.push(Math.min(callbackStats[i]!, syncStats[i]!));
      promiseStats.push(await statAllPromises(manyFiles));
      const again = await scanOnce(app, manyLib.id);
      if (again.result.books_added !== 0 || again.result.books_updated !== 0)
        throw new Error(`rescan changed something: ${JSON.stringify(again.result)}`);
      rescans.push(again.ms);
    }
    const rescanMs = Math.min(...rescans);
    const statMs = Math.min(...stats);
    rows.push({
      measure: `normal rescan, unchanged ${rescanBooks} books (best of 3)`,
      value: `${(rescanMs / 1000).toFixed(3)} s`,
      goal: '< 2 s',
    });
    rows.push({ measure: `stat() of every file, the faster way (best of 3)`, value: `${(statMs / 1000).toFixed(3)} s`, goal: '' });
    rows.push({
      measure: `  callback stat(), 64 in flight / statSync() in a loop (best of 3)`,
      value: `${(Math.min(...callbackStats) / 1000).toFixed(3)} s / ${(Math.min(...syncStats) / 1000).toFixed(3)} s`,
      goal: '',
    });
    rows.push({
      measure: 'rescan / stat ratio (worst of 3 pairs)',
      value: `${(rescanMs / statMs).toFixed(2)} (${Math.max(...rescans.map((r, i) => r / stats[i]!)).toFixed(2)})`,
      goal: '≤ 4',
    });
    const promiseStatMs = Math.min(...promiseStats);
    rows.push({
      measure: `  the same against fs/promises stat(), 32 at a time (${(promiseStatMs / 1000).toFixed(3)} s)`,
      value: (rescanMs / promiseStatMs).toFixed(2),
      goal: '',
    });

    // 3. Memory of the real server process during the 10,000-book initial scan.
    if (existsSync(distCli)) {
      const server = await serverScanMemory(many.root, rescanBooks);
      rows.push({ measure: `server (node dist/cli.js serve) at rest, library created`, value: `${server.restMb.toFixed(0)} MB`, goal: '' });
      rows.push({
        measure: `server peak RSS during the ${rescanBooks}-book initial scan (${(server.ms / 1000).toFixed(1)} s)`,
        value: `${server.peakMb.toFixed(0)} MB`,
        goal: '< 300 MB',
      });
    } else {
      rows.push({ measure: 'server peak RSS during the initial scan', value: 'skipped: run `npm run build`', goal: '< 300 MB' });
    }
  } finally {
    await app.close();
  }
  if (!process.env.BENCH_INITIAL_ONLY) printRows(rows);
}

function printRows(rows: readonly Row[]): void {
  const width = Math.max(...rows.map((r) => r.measure.length));
  for (const r of rows) console.log(`${r.measure.padEnd(width)}  ${r.value.padEnd(24)} ${r.goal}`);
  console.log(
    `load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await run();
