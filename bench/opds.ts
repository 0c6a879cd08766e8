/**
 * OPDS benchmark (`npx tsx bench/opds.ts`, or `npm run bench -- --in-process`): the browsing benchmark's synthesized
 * SQLite catalog (10,000 series / 50,000 books, bench/browse.ts), served on a real port. For each feed, with wrk
 * (bench/wrk.ts, its own process): one connection (one request at a time, as an e-reader asks), then 10 connections;
 * p50 and p95 from wrk's latency histogram. Authentication is HTTP Basic with the password, as OPDS readers send it.
 * A run with a non-2xx answer or a socket error gives no figure, only its errors.
 * Goal (issue 8): both feed roots, /opds/v1.2/catalog and /opds/v2, p95 < 50 ms (one connection).
 */
import { rm } from 'node:fs/promises';
import { prepareBrowseBench } from './browse.js';
import { runWrk, type WrkResult } from './wrk.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const GOAL_MS = 50;

export interface OpdsBenchRow {
  name: string;
  /** One connection. */
  p50: number;
  p95: number;
  /** 10 connections. */
  concurrentP50: number;
  concurrentP95: number;
  rps: number;
  /** What made a run invalid (non-2xx answers, socket errors); empty when both were valid. */
  problem: string;
  root: boolean;
}

export async function run(): Promise<OpdsBenchRow[]> {
  const { app, base, seriesIds, dataDir } = await prepareBrowseBench();
  const headers = { Authorization: `Basic ${Buffer.from('admin:bench password 123').toString('base64')}` };
  const feeds = [
    { name: 'OPDS 1.2 root /opds/v1.2/catalog', url: '/opds/v1.2/catalog', root: true },
    { name: 'OPDS 2.0 root /opds/v2', url: '/opds/v2', root: true },
    { name: 'OPDS 1.2 all series, page 100', url: '/opds/v1.2/series?page=100', root: false },
    { name: 'OPDS 1.2 series books', url: `/opds/v1.2/series/${seriesIds[42]}`, root: false },
    { name: 'OPDS 1.2 search', url: '/opds/v1.2/search?q=drag', root: false },
    { name: 'OPDS 2.0 all series, page 100', url: '/opds/v2/series?page=100', root: false },
  ];
  const rows: OpdsBenchRow[] = [];
  console.log(`OPDS feeds, wrk for ${DURATION} s each at 1 connection, then at 10 connections (2 threads), after 1 s unmeasured`);
  for (const feed of feeds) {
    const load = (connections: number): Promise<WrkResult> =>
      runWrk({
        base,
        requests: [{ path: feed.url }],
        headers,
        connections,
        threads: Math.min(2, connections),
        seconds: DURATION,
        warmupSeconds: 1,
      });
    const one = await load(1);
    const ten = await load(10);
    const row: OpdsBenchRow = {
      name: feed.name,
      p50: one.latency.p50,
      p95: one.latency.p95,
      concurrentP50: ten.latency.p50,
      concurrentP95: ten.latency.p95,
      rps: ten.rps,
      problem: [one.problem && `1 connection: ${one.problem}`, ten.problem && `10 connections: ${ten.problem}`].filter(Boolean).join('; '),
      root: feed.root,
    };
    rows.push(row);
    if (row.problem) {
      console.log(`${row.name.padEnd(36)} INVALID: ${row.problem}`);
      continue;
    }
    const verdict = feed.root
      ? row.p95 < GOAL_MS
        ? '  OK (goal p95 < 50 ms, 1 connection)'
        : '  OVER GOAL (p95 < 50 ms, 1 connection)'
      : '';
    console.log(
      `${row.name.padEnd(36)} 1 conn p50 ${row.p50} ms p95 ${row.p95} ms | 10 conn p50 ${row.concurrentP50} ms p95 ${row.concurrentP95} ms ${row.rps} req/s${verdict}`,
    );
  }
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
