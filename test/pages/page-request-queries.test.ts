import path from 'node:path';
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { testDatabaseType } from '../helpers/config.js';
import { makeCbz, makeImage } from '../media/fixtures.js';

// What a page request asks of the database, counted where every query of the app goes through (Kysely's
// executor), with the plans of those queries. A reader turns dozens of pages a minute: on SQLite the caller is
// answered from memory while nothing was written (one version read, no query) and the book is one lookup by
// primary key; on PostgreSQL, where instances share no memory, the caller (user row and revocation together) and
// the book are one round trip each.

let t: CatalogTestApp;
let pageUrl: string;
let reader: Headers;
const executed: Array<{ sql: string; parameters: readonly unknown[] }> = [];
let versionReads = 0;

beforeAll(async () => {
  t = await createCatalogApp();
  const page = await makeImage({ width: 300, height: 450, format: 'jpeg', noise: true });
  await scannedLibrary(
    t,
    async (dir) =>
      void (await makeCbz(path.join(dir, 'Stored'), 'Stored 001.cbz', { pages: [{ name: '001.jpg', data: page }], store: true })),
  );
  const books = await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books');
  pageUrl = `/api/v1/books/${books.body.data[0]!.id}/pages/1`;
  reader = (await createUser(t, 'reader')).headers;
  // Only the requests' queries are counted: the task worker's polling stops.
  await t.app.background.stop();
  const executor = t.database.db.getExecutor();
  const execute = executor.executeQuery.bind(executor);
  executor.executeQuery = <R>(query: CompiledQuery<R>) => {
    executed.push({ sql: query.sql, parameters: query.parameters });
    return execute(query);
  };
  const version = t.database.changeVersion?.bind(t.database);
  if (version)
    t.database.changeVersion = () => {
      versionReads += 1;
      return version();
    };
});
afterAll(() => t.close());

/** The queries (and version reads) of `count` page requests, after two that fill whatever is remembered. */
async function pageRequests(count: number): Promise<{ queries: typeof executed; versionReads: number }> {
  for (let i = 0; i < 2; i++) expect((await call(t, reader, 'GET', pageUrl)).status).toBe(200);
  executed.length = 0;
  versionReads = 0;
  for (let i = 0; i < count; i++) expect((await call(t, reader, 'GET', pageUrl)).status).toBe(200);
  return { queries: [...executed], versionReads };
}

describe('A page request', () => {
  it('makes one query on SQLite (the book) and two on PostgreSQL (the caller, the book)', async () => {
    const { queries, versionReads: reads } = await pageRequests(5);
    // The table each query reads (its outermost FROM, the last one in the text).
    const tables = queries.map((q) => [...q.sql.matchAll(/from "(\w+)"/g)].at(-1)?.[1]);
    if (testDatabaseType() === 'sqlite') {
      expect(tables).toEqual(Array(5).fill('books'));
      // Whether anything was written since the caller was remembered: one read of a kept statement.
      expect(reads).toBe(5);
    } else {
      expect(tables).toEqual(Array(5).fill(['users', 'books']).flat());
    }
  });

  it('finds its rows by primary key (EXPLAIN)', async () => {
    const { queries } = await pageRequests(1);
    const seen = new Map(queries.map((q) => [q.sql, q]));
    // The caller's query, which SQLite runs only after a write: a write first (the book marked read).
    expect((await call(t, reader, 'POST', `${pageUrl.replace(/\/pages\/1$/, '')}/read`)).status).toBeLessThan(300);
    executed.length = 0;
    expect((await call(t, reader, 'GET', pageUrl)).status).toBe(200);
    for (const q of executed) seen.set(q.sql, q);
    expect([...seen.keys()].some((s) => s.includes('from "users"'))).toBe(true);
    for (const q of seen.values()) {
      const prefix = testDatabaseType() === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
      const { rows } = await t.database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(prefix + q.sql, [...q.parameters]));
      const plan = rows.map((r) => r.detail ?? r['QUERY PLAN'] ?? JSON.stringify(r));
      if (testDatabaseType() === 'sqlite') {
        expect(
          plan.filter((d) => /^SCAN /.test(d)),
          plan.join('\n'),
        ).toEqual([]);
        expect(
          plan.some((d) => /USING (COVERING )?INDEX sqlite_autoindex_\w+_1 \(\w+=\?\)/.test(d)),
          plan.join('\n'),
        ).toBe(true);
      } else {
        // PostgreSQL may well scan a table of a few rows rather than use its key: only a plan is asked for here.
        expect(plan.length).toBeGreaterThan(0);
      }
    }
  });
});
