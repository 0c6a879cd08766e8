import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCacheDir } from '../../src/data-dir.js';
import { createTestApp } from '../helpers/app.js';
import { basic, createUser } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { testDatabaseType } from '../helpers/config.js';
import { makeCbz } from '../media/fixtures.js';

/** Tables whose writes the full disk refuses: progress (a user's write), the login bookkeeping, revocations. */
const REFUSED = [
  { table: 'read_progress', events: ['INSERT', 'UPDATE'] },
  { table: 'users', events: ['UPDATE'] },
  { table: 'login_failures', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'revoked_tokens', events: ['INSERT'] },
] as const;

/**
 * Makes the database refuse those writes the way a full disk does, through the real driver:
 * - SQLite: the database may not grow past its current size (`max_page_count`) and each write also has to
 *   store a megabyte, so SQLite answers SQLITE_FULL ("database or disk is full");
 * - PostgreSQL: each write raises SQLSTATE 53100 (disk_full), the error a full volume gives.
 */
async function fillDisk(t: CatalogTestApp): Promise<void> {
  const db = t.database.db;
  if (testDatabaseType() === 'sqlite') {
    await sql`CREATE TABLE disk_filler (b BLOB)`.execute(db);
    for (const { table, events } of REFUSED) {
      for (const event of events) {
        await sql
          .raw(
            `CREATE TRIGGER fill_${table}_${event} BEFORE ${event} ON ${table} BEGIN INSERT INTO disk_filler VALUES (zeroblob(1000000)); END`,
          )
          .execute(db);
      }
    }
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db);
    await sql.raw(`PRAGMA max_page_count = ${rows[0]!.page_count}`).execute(db);
  } else {
    await sql
      .raw(
        `CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`,
      )
      .execute(db);
    for (const { table, events } of REFUSED) {
      await sql
        .raw(`CREATE TRIGGER fill_${table} BEFORE ${events.join(' OR ')} ON ${table} FOR EACH ROW EXECUTE FUNCTION disk_full()`)
        .execute(db);
    }
  }
}

/** Space returns. */
async function freeDisk(t: CatalogTestApp): Promise<void> {
  const db = t.database.db;
  if (testDatabaseType() === 'sqlite') {
    for (const { table, events } of REFUSED) for (const event of events) await sql.raw(`DROP TRIGGER fill_${table}_${event}`).execute(db);
    await sql.raw('PRAGMA max_page_count = 1073741823').execute(db);
  } else {
    for (const { table } of REFUSED) await sql.raw(`DROP TRIGGER fill_${table} ON ${table}`).execute(db);
  }
}

describe('a full disk: writes answer 507, logins and reads keep working', () => {
  let t: CatalogTestApp;
  let reader: Awaited<ReturnType<typeof createUser>>;
  let bookId: string;
  let komgaCookie: string;
  beforeAll(async () => {
    t = await createCatalogApp({ komga_api: { enabled: true } });
    await scannedLibrary(t, (d) => makeCbz(d, 'Full 001.cbz', { pages: 2, pageSize: { width: 60, height: 90 } }).then(() => undefined));
    bookId = (await t.app.inject({ method: 'GET', url: '/api/v1/books', headers: t.headers })).json<Paged<{ id: string }>>().data[0]!.id;
    reader = await createUser(t, 'reader');
    const opened = await t.app.inject({ method: 'GET', url: '/komga/api/v1/libraries', headers: basic(reader.username, reader.password) });
    komgaCookie = /^(KOMGA-SESSION=[^;]+)/.exec(String(opened.headers['set-cookie']))![1]!;
    await fillDisk(t);
    // The thumbnail cache cannot be written either: its folder's place is taken.
    const cache = derivedCacheDir(t.config);
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(path.dirname(cache), { recursive: true });
    writeFileSync(cache, 'not a folder');
  });
  afterAll(() => t.close());

  it('a progress write answers 507 InsufficientStorage with a clear message', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/books/${bookId}/progress`,
      headers: reader.headers,
      payload: { current_page: 2, is_completed: false },
    });
    expect(res.statusCode).toBe(507);
    expect(res.json()).toEqual({ error: 'InsufficientStorage', message: expect.stringMatching(/out of disk space/), details: null });
  });

  it('Komga logout still clears the session cookie when the revocation cannot be recorded', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/komga/api/logout', headers: { cookie: komgaCookie } });
    expect(res.statusCode).toBe(507);
    expect(res.json().error).toBe('InsufficientStorage');
    expect(String(res.headers['set-cookie'])).toMatch(/^KOMGA-SESSION=; Path=\/; Max-Age=0/);
  });

  it('login answers 200 (its bookkeeping is skipped), a wrong password 401', async () => {
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: reader.username, password: reader.password },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().access_token).toEqual(expect.any(String));
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: reader.username, password: 'wrong password' },
    });
    expect(wrong.statusCode, wrong.body).toBe(401);
  });

  it('reads work: the thumbnail and a resized page are sent uncached with 200', async () => {
    const thumb = await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/thumbnail`, headers: reader.headers });
    expect(thumb.statusCode, thumb.body).toBe(200);
    expect(thumb.headers['content-type']).toMatch(/^image\//);
    expect(thumb.rawPayload.length).toBeGreaterThan(0);
    const page = await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/pages/1?width=30`, headers: reader.headers });
    expect(page.statusCode, page.body).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}`, headers: reader.headers })).statusCode).toBe(200);
  });

  it('/health says degraded (still 200: reads are served) and why', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      checks: { database: 'ok', disk: 'low' },
      reasons: [expect.stringMatching(/refused for lack of disk space/)],
    });
  });

  it('once space returns, the same write succeeds without a restart', async () => {
    await freeDisk(t);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/books/${bookId}/progress`,
      headers: reader.headers,
      payload: { current_page: 2, is_completed: false },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('/health measures the free space of data_dir (and the SQLite file) against health.min_free_disk_mb', () => {
  it('free space below the threshold: degraded, with the volume and the numbers', async () => {
    // No volume here has a petabyte free: the real statfs figure is below this threshold.
    const t = await createTestApp({ health: { min_free_disk_mb: 1_000_000_000 } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'degraded',
        checks: { database: 'ok', disk: 'low' },
        reasons: [expect.stringMatching(/^data_dir: \d+ MB free on its volume, below health\.min_free_disk_mb/)],
      });
    } finally {
      await t.close();
    }
  });

  it('enough room: ok, and no reasons', async () => {
    const t = await createTestApp({ health: { min_free_disk_mb: 0 } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      expect(res.json()).toEqual({
        status: 'ok',
        version: '2.5.0',
        uptime_seconds: expect.any(Number),
        checks: { database: 'ok', disk: 'ok', libraries: 'ok' },
      });
    } finally {
      await t.close();
    }
  });
});
