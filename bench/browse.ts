/**
 * Browsing benchmark (`npx tsx bench/browse.ts`): a synthesized SQLite catalog of 10,000 series / 50,000 books
 * (bulk inserts; the FTS triggers index them), a real HTTP port, wrk (bench/wrk.ts: its own process, 2 threads,
 * 20 connections) against the browsing endpoints, then page serving (original bytes vs a plain file route) and
 * cached resized WebP pages (one connection: one request at a time).
 * Goals (issue 6): p95 < 25 ms for the lists; page/plain ratio ≥ 0.6; cached resized page p50 < 2 ms.
 * Each endpoint gets one unmeasured second of the same load first (a running server is warm; the first requests
 * of a route pay its JIT compilation). BENCH_SECONDS (default 5) per endpoint; BENCH_ONLY=deck,search runs only the measurements whose name holds a
 * word. A run with a non-2xx answer or a socket error gives no figure, only its errors. The server and the plain-file
 * route share this process (`npm run bench` measures the built server from outside): on a busy machine, read the
 * numbers next to `uptime`.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { ConfigSchema } from '../src/config/schema.js';
import { openDatabase } from '../src/db/connection.js';
import { newId } from '../src/db/ids.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { hashFile } from '../src/media/analysis/hash.js';
import { openBook } from '../src/media/formats/open-book.js';
import { makeCbz, makeImage } from '../test/media/fixtures.js';
import { runWrk } from './wrk.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 10_000);
const BOOKS_PER_SERIES = 5;
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const GENRES = ['Action', 'Adventure', 'Comedy', 'Drama', 'Fantasy', 'Horror', 'Mystery', 'Romance', 'Sci-Fi', 'Slice of Life'];
const WORDS = [
  'Dragon',
  'Shadow',
  'Knight',
  'Café',
  'Star',
  'Ocean',
  'Iron',
  'Crimson',
  'Silent',
  'Golden',
  'Wolf',
  'Storm',
  'Éclair',
  'River',
  'Moon',
];

export interface BrowseBenchResult {
  endpoints: Array<{ name: string; p50: number; p95: number; p99: number; rps: number; errors: number }>;
  pages: { pageRps: number; plainRps: number; ratio: number; resizedCachedP50Ms: number };
}

/** The synthesized catalog served on a real port, for the benchmark and for profiling scripts. */
export async function prepareBrowseBench() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-browse-'));
  const libraryDir = path.join(dataDir, 'library');
  const config = ConfigSchema.parse({
    data_dir: dataDir,
    logging: { level: 'silent' },
    rate_limit: { enabled: false },
    auth: { jwt_secret: 'bench-secret-bench-secret-bench-secret-0123' },
  });
  const database = openDatabase(config);
  await migrateToLatest(database);
  const db = database.db;

  // A real CBZ for page serving, plus the raw image for the plain-file comparison.
  const pageImage = await makeImage({ width: 1200, height: 1800, format: 'jpeg', noise: true });
  const plainFile = path.join(dataDir, 'plain.jpg');
  await writeFile(plainFile, pageImage);
  const cbz = await makeCbz(path.join(libraryDir, 'Real'), 'Real 001.cbz', {
    pages: [
      { name: '001.jpg', data: pageImage },
      { name: '002.jpg', data: pageImage },
    ],
    store: true,
  });
  const reader = await openBook(cbz, 'cbz');
  const realPages = await reader.pages();
  await reader.close();

  const t0 = Date.now();
  const now = new Date().toISOString();
  const libraryId = newId();
  await db
    .insertInto('libraries')
    .values({
      id: libraryId,
      name: 'Bench',
      path: libraryDir,
      scanning_config: '{}',
      settings: '{}',
      created_at: now,
      updated_at: now,
      last_scanned_at: now,
    })
    .execute();
  const seriesIds: string[] = [];
  const firstBooks: string[] = [];
  let realBookId = '';
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < SERIES; start += 500) {
      const series = [];
      const books = [];
      for (let i = start; i < Math.min(SERIES, start + 500); i++) {
        const id = newId();
        seriesIds.push(id);
        const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}`;
        const genres = [GENRES[i % GENRES.length]!, GENRES[(i * 3 + 1) % GENRES.length]!].sort();
        const created = new Date(Date.parse('2020-01-01') + i * 60_000).toISOString();
        series.push({
          id,
          library_id: libraryId,
          path: `S${i}`,
          name,
          sort_name: name.toLowerCase(),
          title: null,
          summary: `The story of ${name}, a tale of ${WORDS[(i * 5) % WORDS.length]}.`,
          publisher: ['Marvel', 'DC Comics', 'Shueisha', 'Dargaud'][i % 4]!,
          status: i % 3 === 0 ? 'Ended' : 'Ongoing',
          language: ['en', 'fr', 'ja'][i % 3]!,
          age_rating: null,
          reading_direction: null,
          year: 1960 + (i % 60),
          genres: JSON.stringify(genres),
          tags: JSON.stringify(i % 2 ? ['classic'] : []),
          external_id: null,
          metadata: '{}',
          book_count: BOOKS_PER_SERIES,
          total_size: 5_000_000,
          total_pages: 100,
          created_at: created,
          updated_at: created,
          deleted_at: null,
        });
        for (let n = 1; n <= BOOKS_PER_SERIES; n++) {
          const bookId = newId();
          if (n === 1) firstBooks.push(bookId);
          const real = i === 0 && n === 1;
          if (real) realBookId = bookId;
          books.push({
            id: bookId,
            library_id: libraryId,
            series_id: id,
            path: real ? 'Real/Real 001.cbz' : `S${i}/${n}.cbz`,
            file_name: real ? 'Real 001.cbz' : `${n}.cbz`,
            format: 'cbz',
            size: 1_000_000 + n,
            mtime_ms: 0,
            hash: real ? await hashFile(cbz) : null,
            page_count: real ? 2 : 20,
            pages: real ? JSON.stringify(realPages) : '[]',
            title: `${name} #${n}`,
            number: String(n),
            number_sort: n,
            volume: null,
            year: null,
            summary: null,
            publisher: null,
            language: null,
            isbn: null,
            genres: JSON.stringify(genres),
            tags: '[]',
            authors: '[]',
            metadata: '{}',
            cover_page: null,
            analysis_error: null,
            analyzed_at: created,
            created_at: created,
            updated_at: created,
            deleted_at: null,
          });
        }
      }
      await trx.insertInto('series').values(series).execute();
      for (let b = 0; b < books.length; b += 250)
        await trx
          .insertInto('books')
          .values(books.slice(b, b + 250))
          .execute();
    }
  });
  console.log(`synthesized ${SERIES} series / ${SERIES * BOOKS_PER_SERIES} books in ${Date.now() - t0} ms`);

  const app = await buildApp({ config, database, logger: false });
  app.get('/bench/plain', async (_req, reply) => reply.header('content-type', 'image/jpeg').send(await readFile(plainFile)));
  await app.ready();
  const setup = await app.inject({
    method: 'POST',
    url: '/api/v1/setup/initialize',
    payload: { username: 'admin', email: 'a@example.org', password: 'bench password 123' },
  });
  const token = setup.json<{ access_token: string; user: { id: string } }>();
  const userId = token.user.id;
  // The admin finished the first book of 300 series (so On Deck has 300 series), and is reading 50 others.
  const progress = [];
  for (let i = 0; i < 350; i++) {
    const at = new Date(Date.parse('2024-01-01') + i * 1000).toISOString();
    progress.push({
      user_id: userId,
      book_id: firstBooks[i * 7]!,
      current_page: i < 300 ? 20 : 5,
      is_completed: i < 300 ? 1 : 0,
      started_at: at,
      updated_at: at,
      completed_at: i < 300 ? at : null,
      device_id: null,
    });
  }
  for (let b = 0; b < progress.length; b += 100)
    await db
      .insertInto('read_progress')
      .values(progress.slice(b, b + 100))
      .execute();
  // As `colophon serve` runs: the task worker polling and the scheduler running in the background.
  await app.background.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const headers = { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' };
  return { app, base, headers, realBookId, userId, seriesIds, database, dataDir };
}

/** `BENCH_ONLY=on-deck,search` runs only the measurements whose name contains one of the words. */
const ONLY = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);
const selected = (name: string) => ONLY.length === 0 || ONLY.some((w) => name.toLowerCase().includes(w));

/** The lists measured, each with the goal p95 < 25 ms. */
const THREE_LEAF = {
  condition: {
    allOf: [
      { genre: { operator: 'is', value: 'Fantasy' } },
      { language: { operator: 'is', value: 'en' } },
      { anyOf: [{ status: { operator: 'is', value: 'Ended' } }] },
    ],
  },
};

export async function run(): Promise<BrowseBenchResult> {
  const { app, base, headers, realBookId, dataDir } = await prepareBrowseBench();
  const skipped = { name: '', p50: 0, p95: 0, p99: 0, rps: 0, errors: 0 };
  /**
   * `writes`: a reader saving its progress this many times per second during the measurement (informational
   * rows). Every write makes the server forget what it remembers of an unchanged database (list pages and
   * totals, On Deck), so these rows show the lists' cost when they must be computed again.
   */
  const cannon = async (name: string, url: string, method = 'GET', body?: unknown, p95Goal = true, writes = 0) => {
    if (!selected(name)) return { ...skipped, name };
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (url.includes('pageSize')) {
      // A list that finds nothing is cheap: make sure each measured list has a full first page.
      const sample = (await (await fetch(base + url, { method, headers, body: payload })).json()) as { total?: number; data?: unknown[] };
      if (!sample.data?.length) throw new Error(`${name}: the list is empty (total ${sample.total})`);
      console.log(`${name}: total ${sample.total}, ${sample.data.length} on the page`);
    }
    let saved = 0;
    let turn = 0;
    const writer = writes
      ? setInterval(() => {
          turn++;
          void fetch(`${base}/api/v1/books/${realBookId}/progress`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ current_page: (turn % 2) + 1 }),
          }).then((r) => {
            if (r.ok) saved++;
          });
        }, 1000 / writes)
      : undefined;
    let r;
    try {
      r = await runWrk({
        base,
        requests: [{ method, path: url, body: payload }],
        headers: { Authorization: headers.authorization },
        connections: 20,
        seconds: DURATION,
        warmupSeconds: 1,
      });
    } finally {
      clearInterval(writer);
    }
    const { p50, p95, p99 } = r.latency;
    const row = {
      name,
      p50,
      p95,
      p99,
      rps: r.rps,
      errors: r.errors.non2xx + r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout,
    };
    const goal = !p95Goal || row.p95 < 25 ? '' : '  (goal p95 < 25 ms)';
    const wrote = writes ? `  (${saved} progress writes)` : '';
    console.log(
      r.valid
        ? `${name.padEnd(56)} p50 ${p50} ms  p95 ${p95} ms  p99 ${p99} ms  ${row.rps} req/s${goal}${wrote}`
        : `${name.padEnd(56)} INVALID: ${r.problem}${wrote}`,
    );
    return row;
  };
  console.log('wrk, 2 threads, 20 connections, after 1 s of unmeasured load; percentiles from its latency histogram');
  const endpoints = [
    await cannon('GET /series?pageSize=50', '/api/v1/series?pageSize=50'),
    await cannon('POST /series/list (3-leaf condition)', '/api/v1/series/list?pageSize=50', 'POST', THREE_LEAF),
    // Two searches: a title with a number (36 matches) and two common words (1,334 matches, all ranked).
    await cannon('POST /series/search "dragon 10"', '/api/v1/series/search?pageSize=50', 'POST', { query: 'dragon 10' }),
    await cannon('POST /series/search "star ocean"', '/api/v1/series/search?pageSize=50', 'POST', { query: 'star ocean' }),
    await cannon('GET /books/on-deck', '/api/v1/books/on-deck?pageSize=50'),
  ];
  console.log('the same lists while a reader saves progress 10 times a second (every write is a change: nothing remembered survives it)');
  for (const [name, url, method, body] of [
    ['POST /series/list (3-leaf), with writes', '/api/v1/series/list?pageSize=50', 'POST', THREE_LEAF],
    ['POST /series/search "star ocean", with writes', '/api/v1/series/search?pageSize=50', 'POST', { query: 'star ocean' }],
    ['GET /books/on-deck, with writes', '/api/v1/books/on-deck?pageSize=50', 'GET', undefined],
  ] as const) {
    endpoints.push(await cannon(name, url, method, body, false, 10));
  }

  const pageRun = await cannon('GET /books/{id}/pages/1 (original)', `/api/v1/books/${realBookId}/pages/1`, 'GET', undefined, false);
  const plainRun = await cannon('GET /bench/plain (same bytes from a file)', '/bench/plain', 'GET', undefined, false);
  // Cached resized page, one request at a time (one connection): resized once first, so every request reads the cache.
  const resizedPath = `/api/v1/books/${realBookId}/pages/2?width=800&format=webp`;
  await (await fetch(base + resizedPath, { headers })).arrayBuffer();
  let resizedP50 = 0;
  if (selected('resized')) {
    const r = await runWrk({
      base,
      requests: [{ path: resizedPath }],
      headers: { Authorization: headers.authorization },
      connections: 1,
      threads: 1,
      seconds: DURATION,
      warmupSeconds: 1,
    });
    if (r.valid) resizedP50 = r.latency.p50;
    else console.log(`cached resized WebP width 800: INVALID: ${r.problem}`);
  }
  // No ratio when either side gave no figure (an invalid run's rate is 0).
  const ratio = pageRun.rps && plainRun.rps ? Math.round((pageRun.rps / plainRun.rps) * 100) / 100 : 0;
  console.log(
    `page/plain req/s ratio ${ratio ? ratio : '— (no figure)'} (goal ≥ 0.6); cached resized WebP width 800, one connection: p50 ${resizedP50 || '—'} ms (goal < 2 ms)`,
  );
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
  return { endpoints, pages: { pageRps: pageRun.rps, plainRps: plainRun.rps, ratio, resizedCachedP50Ms: resizedP50 } };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
