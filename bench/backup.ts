/**
 * `npm run bench -- --backup`: issue 52's measurements of backups, on the server as users run it
 * (bench/server-process.ts, dist/) over HTTP, on SQLite.
 *
 * - The library: 10,000 books (1,000 series × 10, the user corpus of bench/user-corpus.ts with 2 pages a book), scanned;
 *   5 readers with history: each has read 1,000 books, 4 positions a book (20,000 progress requests in all).
 * - Backup: `POST /admin/backups` (the `backup` task), its time and the file's size; restore: `colophon restore` of
 *   that file into an empty data folder, its time.
 * - Page serving (`GET /books/{id}/pages/1`, a random book each request, wrk, 20 connections) for `--seconds` without a
 *   backup, then as long again while backups run back to back (goal: p95 within 1.5× of the first), with the load average.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { distCli, sleep, startServerProcess, withoutColophonEnv, type ServerProcess } from './server-process.js';
import { ensureUserCorpus } from './user-corpus.js';
import { requireWrk, runWrk, type WrkResult } from './wrk.js';

const SHAPE = { series: 1000, perSeries: 10, pages: 2, width: 1000, height: 1500 };
const READERS = 5;
const READ_PER_READER = 1000;
const POSITIONS_PER_BOOK = 4;
const GOAL_RATIO = 1.5;

async function finished(server: ServerProcess, id: string): Promise<{ status: string; result: Record<string, unknown> }> {
  for (;;) {
    const t = (await server.call<{ status: string; result: Record<string, unknown>; error: string | null }>('GET', `/tasks/${id}`)).body;
    if (t.status === 'completed') return t;
    if (t.status === 'failed' || t.status === 'cancelled') throw new Error(`task ${t.status}: ${t.error}`);
    await sleep(50);
  }
}

/** Runs `work` over `items` with `width` at a time. */
async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function readers(server: ServerProcess, books: readonly { id: string; page_count: number }[]): Promise<number> {
  let requests = 0;
  for (let r = 0; r < READERS; r++) {
    const username = `reader${r + 1}`;
    const password = 'bench-reader-password';
    await server.call('POST', '/users', { username, email: `${username}@example.org`, password, role: 'reader' });
    const login = await fetch(`${server.base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const mine = books.slice(r * 1000, r * 1000 + READ_PER_READER);
    await pool(mine, 10, async (book) => {
      for (let step = 1; step <= POSITIONS_PER_BOOK; step++) {
        const res = await fetch(`${server.base}/api/v1/books/${book.id}/progress`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ current_page: Math.max(1, Math.ceil((book.page_count * step) / POSITIONS_PER_BOOK)) }),
        });
        if (res.status !== 200) throw new Error(`progress: ${res.status} ${await res.text()}`);
        requests += 1;
      }
    });
  }
  return requests;
}

const loadText = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
const line = (r: WrkResult) =>
  `${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50.toFixed(2)} ms, p95 ${r.latency.p95.toFixed(2)} ms${r.valid ? '' : ` (invalid: ${r.problem})`}`;

export async function run(argv: readonly string[]): Promise<void> {
  requireWrk();
  const at = argv.indexOf('--seconds');
  const seconds = at >= 0 ? Number(argv[at + 1]) : 10;
  const corpus = await ensureUserCorpus(SHAPE, console.log);
  const server = await startServerProcess();
  try {
    const library = (await server.call<{ id: string }>('POST', '/libraries', { name: 'Bench', path: corpus.library })).body;
    let clock = performance.now();
    await finished(server, (await server.call<{ id: string }>('POST', `/libraries/${library.id}/scan`)).body.id);
    const scanMs = performance.now() - clock;
    const books: { id: string; page_count: number }[] = [];
    for (let page = 1; ; page++) {
      const got = (await server.call<{ data: { id: string; page_count: number }[] }>('GET', `/books?pageSize=500&page=${page}`)).body.data;
      if (got.length === 0) break;
      books.push(...got);
    }
    clock = performance.now();
    const written = await readers(server, books);
    const historyMs = performance.now() - clock;

    // One backup alone: its time and size.
    clock = performance.now();
    const first = await finished(server, (await server.call<{ id: string }>('POST', '/admin/backups')).body.id);
    const backupMs = performance.now() - clock;
    const name = String(first.result.name);
    const file = path.join(server.dataDir, 'data', 'backups', name);
    const size = statSync(file).size;

    // Restore it with the command into an empty data folder.
    const empty = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-restore-'));
    clock = performance.now();
    await promisify(execFile)(process.execPath, [distCli, 'restore', file], {
      env: { ...withoutColophonEnv(), COLOPHON_DATA_DIR: empty, COLOPHON_LOGGING__LEVEL: 'silent' },
    });
    const restoreMs = performance.now() - clock;
    rmSync(empty, { recursive: true, force: true });

    const load = {
      base: server.base,
      requests: books.map((b) => ({ path: `/api/v1/books/${b.id}/pages/1` })),
      headers: { Authorization: `Bearer ${server.token}` },
      connections: 20,
      seconds,
      warmupSeconds: 3,
    };
    const quiet = await runWrk(load);
    // Backups back to back for the whole load, so that every request falls during one.
    let backingUp = true;
    const during: number[] = [];
    let runningAtEnd = false;
    const backups = (async () => {
      while (backingUp) {
        const t0 = performance.now();
        await finished(server, (await server.call<{ id: string }>('POST', '/admin/backups')).body.id);
        during.push(performance.now() - t0);
      }
    })();
    await sleep(200);
    const busy = await runWrk({ ...load, warmupSeconds: 1 });
    runningAtEnd = backingUp;
    backingUp = false;
    const lastStarted = during.length;
    await backups;
    const after = await runWrk({ ...load, warmupSeconds: 1 });

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    console.log(`backups, ${books.length} books, ${READERS} readers, SQLite, ${os.cpus().length} cores, Node ${process.version}`);
    console.log(`  scan ${s(scanMs)}; history: ${written} progress requests in ${s(historyMs)}`);
    console.log(`  backup: ${s(backupMs)} (task), ${(size / 1024 / 1024).toFixed(1)} MB; ${JSON.stringify(first.result)}`);
    console.log(`  restore (colophon restore into an empty SQLite): ${s(restoreMs)}`);
    console.log(`  pages without a backup: ${line(quiet)}; load ${loadText(quiet.load.before)} → ${loadText(quiet.load.after)}`);
    console.log(
      `  pages during backups: ${line(busy)}; load ${loadText(busy.load.before)} → ${loadText(busy.load.after)}; ` +
        `${lastStarted} backups completed during the load (${during
          .slice(0, lastStarted)
          .map((ms) => s(ms))
          .join(', ')}), ` +
        `${runningAtEnd ? 'one still running at its end' : 'none running at its end'}`,
    );
    console.log(`  pages without a backup, again: ${line(after)}; load ${loadText(after.load.before)} → ${loadText(after.load.after)}`);
    // Against the better of the two quiet runs: the stricter comparison.
    const floor = Math.min(quiet.latency.p95, after.latency.p95);
    console.log(`  p95 ratio ${(busy.latency.p95 / floor).toFixed(2)}× of the better quiet run (goal ≤ ${GOAL_RATIO}×)`);
  } finally {
    await server.stop();
  }
}
