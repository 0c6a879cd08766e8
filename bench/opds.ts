/**
 * OPDS benchmark (`npx tsx bench/opds.ts`, or through `npm run bench`): the browsing benchmark's synthesized
 * SQLite catalog (10,000 series / 50,000 books, bench/browse.ts), served on a real port. For each feed: an exact
 * p95 over sequential requests (one client, as an e-reader is), then autocannon at 10 connections (p95 lies
 * between its p90 and p97.5). Authentication is HTTP Basic with the password, as OPDS readers send it.
 * Goal (issue 8): both feed roots, /opds/v1.2/catalog and /opds/v2, p95 < 50 ms.
 */
import { prepareBrowseBench } from './browse.js';
import { runLoad } from './load-client.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_OPDS_REQUESTS ?? 300);
const GOAL_MS = 50;

export interface OpdsBenchRow {
  name: string;
  p50: number;
  p95: number;
  concurrentP90: number;
  concurrentP97_5: number;
  rps: number;
  errors: number;
  root: boolean;
}

const round = (n: number) => Math.round(n * 100) / 100;

export async function run(): Promise<OpdsBenchRow[]> {
  const { app, base, seriesIds } = await prepareBrowseBench();
  const headers = { authorization: `Basic ${Buffer.from('admin:bench password 123').toString('base64')}` };
  const feeds = [
    { name: 'OPDS 1.2 root /opds/v1.2/catalog', url: '/opds/v1.2/catalog', root: true },
    { name: 'OPDS 2.0 root /opds/v2', url: '/opds/v2', root: true },
    { name: 'OPDS 1.2 all series, page 100', url: '/opds/v1.2/series?page=100', root: false },
    { name: 'OPDS 1.2 series books', url: `/opds/v1.2/series/${seriesIds[42]}`, root: false },
    { name: 'OPDS 1.2 search', url: '/opds/v1.2/search?q=drag', root: false },
    { name: 'OPDS 2.0 all series, page 100', url: '/opds/v2/series?page=100', root: false },
  ];
  const rows: OpdsBenchRow[] = [];
  console.log(`OPDS feeds, ${SEQUENTIAL} sequential requests (exact p95) then autocannon 10 connections for ${DURATION} s`);
  for (const feed of feeds) {
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL + 10; i++) {
      const start = process.hrtime.bigint();
      const res = await fetch(base + feed.url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${feed.url}: ${res.status}`);
      if (i >= 10) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    const r = await runLoad({ url: base + feed.url, headers, connections: 10, duration: DURATION });
    const row: OpdsBenchRow = {
      name: feed.name,
      p50: round(times[Math.floor(times.length * 0.5)]!),
      p95: round(times[Math.floor(times.length * 0.95)]!),
      concurrentP90: r.latency.p90,
      concurrentP97_5: r.latency.p97_5,
      rps: Math.round(r.requests.average),
      errors: r.non2xx + r.errors,
      root: feed.root,
    };
    rows.push(row);
    const verdict = feed.root ? (row.p95 < GOAL_MS ? '  OK (goal p95 < 50 ms, sequential)' : '  OVER GOAL (p95 < 50 ms, sequential)') : '';
    console.log(
      `${row.name.padEnd(36)} sequential p50 ${row.p50} ms p95 ${row.p95} ms | 10 conn p90 ${row.concurrentP90} ms p97.5 ${row.concurrentP97_5} ms ${row.rps} req/s` +
        `${row.errors ? `  ERRORS ${row.errors}` : ''}${verdict}`,
    );
  }
  await app.close();
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
