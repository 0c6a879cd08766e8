/**
 * Scan benchmark (SQLite). `npx tsx bench/scan.ts` or through `npm run bench`.
 *  1. Initial scan of 2,000 CBZ (20 pages): books/s, and the ratio of scan wall time to reading and SHA-256-ing
 *     the same files with the same worker threads in the same run (goal ≤ 1.5).
 *  2. Normal rescan of an unchanged 10,000-book library: wall time (goal < 2 s) and ratio to stat()-ing every
 *     file (goal ≤ 4); peak RSS during the 10,000-book initial scan (goal < 300 MB).
 * Sizes: BENCH_SCAN_BOOKS (2000), BENCH_RESCAN_BOOKS (10000). Corpora are kept under .bench/ and reused.
 */
import { mkdtempSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { ConfigSchema } from '../src/config/schema.js';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { App } from '../src/http/types.js';
import { AnalysisPool } from '../src/media/index.js';
import { walkLibrary } from '../src/scanner/walk.js';
import { ensureCorpus } from './corpus.js';

interface Row {
  measure: string;
  value: string;
  goal: string;
}

async function createApp(): Promise<App> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bindery-bench-'));
  const config = ConfigSchema.parse({ data_dir: dataDir, logging: { level: 'warn' }, tasks: { poll_interval_ms: 20 }, auth: { jwt_secret: 'bench-secret-bench-secret-bench-secret-0123' } });
  const database = openDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  await app.catalog.start();
  return app;
}

async function scanOnce(app: App, libraryId: string, mode: 'normal' | 'deep' = 'normal'): Promise<{ ms: number; result: Record<string, unknown> }> {
  const started = performance.now();
  const { task } = await app.catalog.scans.requestScan(libraryId, mode, 'bench');
  for (;;) {
    const row = await app.catalog.queue.get(task.id);
    if (row && ['completed', 'failed', 'cancelled'].includes(row.status)) {
      if (row.status !== 'completed') throw new Error(`scan ${row.status}: ${row.error}`);
      return { ms: performance.now() - started, result: JSON.parse(row.result ?? '{}') as Record<string, unknown> };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const chunk of walkLibrary(root)) for (const f of chunk) files.push(path.join(root, f.relPath));
  return files;
}

/** Read + SHA-256 of every file in the media worker pool, as many in flight as the scanner keeps. */
async function hashAll(files: readonly string[], threads: number): Promise<number> {
  const pool = new AnalysisPool({ threads });
  try {
    await pool.hash(files[0]!); // start the workers outside the measurement
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: threads * 2 }, async () => {
        while (next < files.length) await pool.hash(files[next++]!);
      }),
    );
    return performance.now() - started;
  } finally {
    await pool.destroy();
  }
}

async function statAll(files: readonly string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < files.length; i += 32) await Promise.all(files.slice(i, i + 32).map((f) => stat(f)));
  return performance.now() - started;
}

function trackRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function run(): Promise<void> {
  const threads = os.availableParallelism();
  const initialBooks = Number(process.env.BENCH_SCAN_BOOKS ?? 2000);
  const rescanBooks = Number(process.env.BENCH_RESCAN_BOOKS ?? 10000);
  const rows: Row[] = [];
  const app = await createApp();
  try {
    // Warm the worker pool (thread start-up is not scanning).
    const warm = await ensureCorpus({ out: path.resolve('.bench/corpus-warmup'), series: 1, books: 4, pages: 2 });
    const warmLib = await app.catalog.libraries.create({ name: 'warm-up', path: warm.root });
    await scanOnce(app, warmLib.id);

    // 1. Initial scan of 2,000 CBZ × 20 pages.
    const big = await ensureCorpus({ out: path.resolve(`.bench/corpus-s100-b${initialBooks}-p20`), series: 100, books: initialBooks, pages: 20 });
    const bigFiles = await listFiles(big.root);
    const totalBytes = (await Promise.all(bigFiles.map((f) => stat(f)))).reduce((n, s) => n + s.size, 0);
    const hashMs = await hashAll(bigFiles, threads); // also warms the page cache for both measurements
    const hashMs2 = await hashAll(bigFiles, threads);
    const baseline = Math.min(hashMs, hashMs2);
    const lib = await app.catalog.libraries.create({ name: 'initial', path: big.root });
    const initial = await scanOnce(app, lib.id);
    rows.push({ measure: `initial scan, ${initialBooks} CBZ × 20 pages (${mb(totalBytes)})`, value: `${(initial.ms / 1000).toFixed(2)} s, ${((initialBooks * 1000) / initial.ms).toFixed(0)} books/s`, goal: '' });
    rows.push({ measure: `read + SHA-256 of the same files (${threads} worker threads)`, value: `${(baseline / 1000).toFixed(2)} s (${((totalBytes / 1024 / 1024 / baseline) * 1000).toFixed(0)} MB/s)`, goal: '' });
    rows.push({ measure: 'initial scan / read+hash ratio', value: (initial.ms / baseline).toFixed(2), goal: '≤ 1.5' });
    if (initial.result.books_added !== initialBooks) throw new Error(`expected ${initialBooks} books, got ${JSON.stringify(initial.result)}`);

    // 2. Normal rescan of an unchanged 10,000-book library.
    const many = await ensureCorpus({ out: path.resolve(`.bench/corpus-s500-b${rescanBooks}-p2`), series: 500, books: rescanBooks, pages: 2, width: 64, height: 96 });
    const manyFiles = await listFiles(many.root);
    const manyLib = await app.catalog.libraries.create({ name: 'rescan', path: many.root });
    const rss = trackRss();
    const first = await scanOnce(app, manyLib.id);
    const peak = rss.stop();
    rows.push({ measure: `initial scan of ${rescanBooks} books`, value: `${(first.ms / 1000).toFixed(2)} s, ${((rescanBooks * 1000) / first.ms).toFixed(0)} books/s`, goal: '' });
    rows.push({ measure: `peak RSS during the ${rescanBooks}-book scan (incl. worker threads)`, value: mb(peak), goal: '< 300 MB' });
    await statAll(manyFiles);
    const statMs = Math.min(await statAll(manyFiles), await statAll(manyFiles));
    const rescans: number[] = [];
    for (let i = 0; i < 3; i++) {
      const again = await scanOnce(app, manyLib.id);
      if (again.result.books_added !== 0 || again.result.books_updated !== 0) throw new Error(`rescan changed something: ${JSON.stringify(again.result)}`);
      rescans.push(again.ms);
    }
    const rescanMs = Math.min(...rescans);
    rows.push({ measure: `normal rescan, unchanged ${rescanBooks} books (best of 3)`, value: `${(rescanMs / 1000).toFixed(3)} s`, goal: '< 2 s' });
    rows.push({ measure: `stat() of every file (32 in flight)`, value: `${(statMs / 1000).toFixed(3)} s`, goal: '' });
    rows.push({ measure: 'rescan / stat ratio', value: (rescanMs / statMs).toFixed(2), goal: '≤ 4' });
  } finally {
    await app.close();
  }
  const width = Math.max(...rows.map((r) => r.measure.length));
  for (const r of rows) console.log(`${r.measure.padEnd(width)}  ${r.value.padEnd(24)} ${r.goal}`);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await run();
