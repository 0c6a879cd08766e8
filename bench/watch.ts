/**
 * `npm run bench -- --watch [--books N] [--runs R] [--idle-seconds S]`: issue 41's folder watching, measured on the
 * server as users run it (bench/server-process.ts: `node dist/cli.js serve`, its own process, temp data folder),
 * driven over HTTP on loopback.
 *
 * 1. Events → book visible: a watched, empty library with `scanning_config.watch_quiet_seconds` set to QUIET_S (1 s,
 *    not the default 10 s, so that the figure is mostly the server's own work); R times each, a CBZ copied into a new
 *    folder of the library, then 100 CBZ copied into another new folder; the clock starts when the last copy has
 *    closed its file and stops when `GET /libraries/{id}` counts the new books (polled every 20 ms). Reported as
 *    p50/p95, and minus the quiet period (what the server adds to the wait it was told to make).
 * 2. Idle cost of the watcher: a library of N books (bench/corpus.ts, 10 books per series folder, 2 small pages each:
 *    the watcher's cost is in folders and files, not bytes), scanned with watching off, the follow-up tasks done; the
 *    server's CPU time (/proc/<pid>/stat, every thread) and RSS over S seconds at rest; then watching turned on
 *    (`PATCH /libraries/{id}`), and once the library's watch state is `watching` and settled, the same again. The
 *    difference is the watcher's (goal < 1% of one core and < 20 MB more RSS).
 */
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCorpus } from './corpus.js';
import { processMemory, sleep, startServerProcess, type ServerProcess } from './server-process.js';

const QUIET_S = 1;
const POLL_MS = 20;
const BATCH = 100;
const CPU_GOAL = 1; // % of one core
const RSS_GOAL_MB = 20;

/** CPU time (user + system, every thread) a process has used, in ms (Linux: 100 ticks a second). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const mb = (bytes: number) => bytes / 1024 / 1024;
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function waitTask(server: ServerProcess, id: string): Promise<void> {
  for (;;) {
    const t = (await server.call<{ status: string; error: string | null }>('GET', `/tasks/${id}`)).body;
    if (t.status === 'completed') return;
    if (t.status === 'failed' || t.status === 'cancelled') throw new Error(`scan ${t.status}: ${t.error}`);
    await sleep(100);
  }
}

/** Until no task is pending or running (the cover tasks a scan queues), seen twice 1 s apart. */
async function waitIdleTasks(server: ServerProcess): Promise<void> {
  let quietLooks = 0;
  while (quietLooks < 2) {
    const stats = (await server.call<{ by_status: Record<string, number> }>('GET', '/tasks/stats')).body;
    quietLooks = (stats.by_status.pending ?? 0) + (stats.by_status.running ?? 0) === 0 ? quietLooks + 1 : 0;
    await sleep(1000);
  }
}

async function waitWatchState(server: ServerProcess, libraryId: string, state: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = (await server.call<{ state: string; reason: string | null }>('GET', `/libraries/${libraryId}/watching`)).body;
    if (s.state === state) return;
    if (Date.now() > until) throw new Error(`watch state ${s.state} (${s.reason ?? ''}), not ${state}, after ${timeoutMs} ms`);
    await sleep(100);
  }
}

const bookCount = async (server: ServerProcess, libraryId: string) =>
  (await server.call<{ book_count: number }>('GET', `/libraries/${libraryId}`)).body.book_count;

async function latencies(runs: number): Promise<{ one: number[]; hundred: number[] }> {
  // Distinct books (every one its own hash), written once; copied from here into the watched library.
  const staging = await ensureCorpus({
    out: path.join(os.tmpdir(), `colophon-bench-watch-staging-${runs}`),
    series: 1,
    books: runs * (1 + BATCH),
    pages: 2,
    width: 160,
    height: 240,
  });
  const stagedDir = path.join(staging.root, 'Series 0001');
  const staged = (i: number) => path.join(stagedDir, `Series 0001 ${String(i + 1).padStart(3, '0')}.cbz`);
  const library = path.join(os.tmpdir(), `colophon-bench-watch-${process.pid}`, 'library');
  await mkdir(library, { recursive: true });
  const server = await startServerProcess();
  try {
    const created = (
      await server.call<{ id: string }>('POST', '/libraries', {
        name: 'Watched',
        path: library,
        scanning_config: { watch: true, watch_quiet_seconds: QUIET_S },
      })
    ).body;
    await waitWatchState(server, created.id, 'watching');
    let next = 0;
    let expected = await bookCount(server, created.id);
    const one: number[] = [];
    const hundred: number[] = [];
    const copyIn = async (folder: string, n: number): Promise<number> => {
      const dir = path.join(library, folder);
      await mkdir(dir);
      const jobs: Promise<void>[] = [];
      for (let i = 0; i < n; i++) {
        jobs.push(copyFile(staged(next), path.join(dir, path.basename(staged(next)))));
        next++;
        if (jobs.length >= 8) await Promise.all(jobs.splice(0));
      }
      await Promise.all(jobs);
      const clock = performance.now();
      expected += n;
      for (;;) {
        if ((await bookCount(server, created.id)) >= expected) return performance.now() - clock;
        if (performance.now() - clock > 120_000) throw new Error(`${n} copied books not visible after 120 s`);
        await sleep(POLL_MS);
      }
    };
    for (let r = 0; r < runs; r++) {
      one.push(await copyIn(`one-${r}`, 1));
      hundred.push(await copyIn(`hundred-${r}`, BATCH));
    }
    return { one, hundred };
  } finally {
    await server.stop();
    await rm(path.dirname(library), { recursive: true, force: true });
  }
}

interface Rest {
  cpuPercent: number;
  rss: number;
}

async function atRest(server: ServerProcess, seconds: number): Promise<Rest> {
  const cpu = processCpuMs(server.pid);
  const clock = performance.now();
  const rss: number[] = [];
  while (performance.now() - clock < seconds * 1000) {
    await sleep(1000);
    rss.push(processMemory(server.pid).rss);
  }
  const elapsed = performance.now() - clock;
  return { cpuPercent: ((processCpuMs(server.pid) - cpu) / elapsed) * 100, rss: percentile(rss, 50) };
}

async function idle(books: number, seconds: number): Promise<{ off: Rest; on: Rest; startMs: number }> {
  const corpus = await ensureCorpus({
    out: path.join(os.tmpdir(), `colophon-bench-watch-corpus-${books}`),
    series: Math.max(1, Math.ceil(books / 10)),
    books,
    pages: 2,
    width: 160,
    height: 240,
  });
  const server = await startServerProcess();
  try {
    const created = (
      await server.call<{ id: string }>('POST', '/libraries', { name: 'Idle', path: corpus.root, scanning_config: { watch: false } })
    ).body;
    await waitTask(server, (await server.call<{ id: string }>('POST', `/libraries/${created.id}/scan`)).body.id);
    if ((await bookCount(server, created.id)) !== books) throw new Error(`expected ${books} books`);
    await waitIdleTasks(server);
    await waitWatchState(server, created.id, 'off');
    await sleep(5000); // the scan's garbage collected, the heap settled
    const off = await atRest(server, seconds);
    const clock = performance.now();
    await server.call('PATCH', `/libraries/${created.id}`, { scanning_config: { watch: true } });
    await waitWatchState(server, created.id, 'watching');
    const startMs = performance.now() - clock;
    await sleep(5000);
    const on = await atRest(server, seconds);
    return { off, on, startMs };
  } finally {
    await server.stop();
  }
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      books: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '5' },
      'idle-seconds': { type: 'string', default: '25' },
    },
  });
  const books = Number(values.books);
  const runs = Number(values.runs);
  const seconds = Number(values['idle-seconds']);
  console.log(`folder watching (SQLite, ${os.cpus().length} cores, Node ${process.version}), load average ${load()}`);

  const { one, hundred } = await latencies(runs);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const row = (name: string, xs: number[]) => {
    const p50 = percentile(xs, 50);
    const p95 = percentile(xs, 95);
    return `| ${name} | ${ms(p50)} | ${ms(p95)} | ${ms(p50 - QUIET_S * 1000)} | ${ms(p95 - QUIET_S * 1000)} | ${xs.map(ms).join(', ')} |`;
  };
  console.log(`\nevents → book visible (watch_quiet_seconds ${QUIET_S}, polled every ${POLL_MS} ms, ${runs} runs), load ${load()}`);
  console.log('| copied in | p50 | p95 | p50 − quiet | p95 − quiet | runs |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(row('1 CBZ', one));
  console.log(row(`${BATCH} CBZ`, hundred));

  const { off, on, startMs } = await idle(books, seconds);
  const cpu = on.cpuPercent - off.cpuPercent;
  const rss = mb(on.rss - off.rss);
  console.log(`\nwatcher at rest, ${books} books (${Math.ceil(books / 10)} folders), ${seconds} s each, load ${load()}`);
  console.log(`watch state 'watching' ${(startMs / 1000).toFixed(1)} s after the PATCH that turned it on`);
  console.log('| server at rest | CPU (% of one core) | RSS (median) |');
  console.log('| --- | --- | --- |');
  console.log(`| watching off | ${off.cpuPercent.toFixed(2)}% | ${mb(off.rss).toFixed(1)} MB |`);
  console.log(`| watching on | ${on.cpuPercent.toFixed(2)}% | ${mb(on.rss).toFixed(1)} MB |`);
  console.log(
    `| the watcher's own | ${cpu.toFixed(2)}% ${cpu < CPU_GOAL ? '✓' : '✗'} (goal < ${CPU_GOAL}%) | ${rss.toFixed(1)} MB ${rss < RSS_GOAL_MB ? '✓' : '✗'} (goal < ${RSS_GOAL_MB} MB) |`,
  );
}
