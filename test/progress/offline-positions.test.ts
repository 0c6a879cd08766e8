import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { makeCbz } from '../media/fixtures.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { databaseAt } from '../helpers/migrations.js';

interface Book {
  id: string;
  title: string;
  page_count: number;
}

interface HistoryEvent {
  id: string;
  device_id: string;
  protocol: string;
  page: number;
  received_at: string;
  client_at: string | null;
  applied: boolean;
}

interface Progress {
  current_page: number;
  is_completed: boolean;
  device_id: string;
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

describe("Conflicts: two devices, an offline device's older position, restore from history", () => {
  let t: CatalogTestApp;
  let book: Book;
  let file: string;

  beforeAll(async () => {
    t = await createCatalogApp();
    await scannedLibrary(t, async (dir) => {
      file = await makeCbz(dir, 'Saga/Saga 1.cbz', { pages: 10, pageSize: { width: 40, height: 60 } });
    });
    book = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data[0]!;
  }, 60_000);
  afterAll(() => t?.close());

  const progressOf = async (headers: Record<string, string>) =>
    (await call<Progress>(t, headers, 'GET', `/api/v1/books/${book.id}/progress`)).body;
  const historyOf = async (headers: Record<string, string>) =>
    (await call<Paged<HistoryEvent>>(t, headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data;

  it("two devices writing: the last write received wins; an offline device's older recorded_at is kept in the history only", async () => {
    const reader = await createUser(t, 'reader');
    const as = (device: string) => ({ ...reader.headers, 'x-device-id': device });
    expect((await call(t, as('tablet'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 3 })).status).toBe(200);
    expect((await call(t, as('phone'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 6 })).status).toBe(200);
    expect(await progressOf(reader.headers)).toMatchObject({ current_page: 6, device_id: 'hdr:phone' });

    // The e-reader read to page 4 an hour ago, offline; it sends that now, saying when.
    const recordedAt = minutesAgo(60);
    const late = await call<Progress>(t, as('ereader'), 'PUT', `/api/v1/books/${book.id}/progress`, {
      current_page: 4,
      recorded_at: recordedAt,
    });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ current_page: 6, device_id: 'hdr:phone' });
    expect(await progressOf(reader.headers)).toMatchObject({ current_page: 6, device_id: 'hdr:phone' });
    const history = await historyOf(reader.headers);
    expect(history.map((e) => [e.device_id, e.page, e.applied])).toEqual([
      ['hdr:ereader', 4, false],
      ['hdr:phone', 6, true],
      ['hdr:tablet', 3, true],
    ]);
    expect(history[0]!.client_at).toBe(recordedAt);
    expect(history[1]!.client_at).toBeNull();

    // The offline event is restorable: the user says that one is right.
    const restored = await call<Progress>(t, as('web'), 'POST', `/api/v1/books/${book.id}/progress/restore`, { event_id: history[0]!.id });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ current_page: 4, device_id: 'hdr:web' });
    expect((await historyOf(reader.headers))[0]).toMatchObject({ page: 4, applied: true, device_id: 'hdr:web' });
  });

  it('a queued position sent twice (its first answer lost) is recorded once (entry_id)', async () => {
    const reader = await createUser(t, 'reader');
    const as = { ...reader.headers, 'x-device-id': 'train-phone' };
    const entry = { current_page: 5, recorded_at: minutesAgo(5), entry_id: '0190d7a2-6a6b-7c3e-9d2f-1a2b3c4d5e6f' };
    const first = await call<Progress>(t, as, 'PUT', `/api/v1/books/${book.id}/progress`, entry);
    expect(first.status).toBe(200);
    expect(first.body.current_page).toBe(5);
    // Meanwhile another device reads on; the replay of the same entry changes nothing, and adds nothing.
    await call(t, { ...reader.headers, 'x-device-id': 'tablet' }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 7 });
    const again = await call<Progress>(t, as, 'PUT', `/api/v1/books/${book.id}/progress`, { ...entry, entryId: undefined });
    expect(again.status).toBe(200);
    expect(again.body.current_page).toBe(7);
    const history = await historyOf(reader.headers);
    expect(history.map((e) => [e.device_id, e.page])).toEqual([
      ['hdr:tablet', 7],
      ['hdr:train-phone', 5],
    ]);
    // The id is the user's: another user may send the same one.
    const other = await createUser(t, 'reader');
    expect((await call<Progress>(t, other.headers, 'PUT', `/api/v1/books/${book.id}/progress`, entry)).body.current_page).toBe(5);
    // Not a UUID: refused with the field named.
    const bad = await call<{ details: { field: string }[] }>(t, as, 'PUT', `/api/v1/books/${book.id}/progress`, {
      current_page: 2,
      entry_id: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]!.field).toBe('entry_id');
  });

  it("a client that says its position is newer (recorded_at after the current one's) overwrites it; camelCase recordedAt too", async () => {
    const reader = await createUser(t, 'reader');
    const as = (device: string) => ({ ...reader.headers, 'x-device-id': device });
    await call(t, as('ereader'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 2, recorded_at: minutesAgo(30) });
    await call(t, as('phone'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 5, recorded_at: minutesAgo(20) });
    expect((await progressOf(reader.headers)).current_page).toBe(5);
    // Recorded after the phone's position, though sent later: it becomes the position.
    await call(t, as('ereader'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 7, recordedAt: minutesAgo(10) });
    expect(await progressOf(reader.headers)).toMatchObject({ current_page: 7, device_id: 'hdr:ereader' });
    // Recorded between the two: older than the current one, history only.
    await call(t, as('tablet'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 3, recorded_at: minutesAgo(15) });
    expect((await progressOf(reader.headers)).current_page).toBe(7);
    // A time in the future counts as now (a wrong clock cannot pin the position).
    await call(t, as('tablet'), 'PUT', `/api/v1/books/${book.id}/progress`, {
      current_page: 8,
      recorded_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await call(t, as('phone'), 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 9 });
    expect((await progressOf(reader.headers)).current_page).toBe(9);
    const [latest, future] = await historyOf(reader.headers);
    expect(latest).toMatchObject({ page: 9, applied: true });
    expect(Date.parse(future!.client_at!)).toBeLessThanOrEqual(Date.parse(latest!.received_at));
  });

  it('refuses a recorded_at that is not an RFC 3339 date-time (400)', async () => {
    const reader = await createUser(t, 'reader');
    const res = await call<{ error: string }>(t, reader.headers, 'PUT', `/api/v1/books/${book.id}/progress`, {
      current_page: 2,
      recorded_at: 'yesterday',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBeDefined();
  });

  it('KOReader: a PUT with an older `timestamp` is history only and KOReader gets the newer position back; without one it wins', async () => {
    const reader = await createUser(t, 'reader');
    const sync = koreaderClient(t, (await createApiKey(t, reader.headers, { name: 'Kobo' })).key);
    const document = koreaderPartialMd5(file);
    await call(t, { ...reader.headers, 'x-device-id': 'phone' }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 6 });
    const stale = await sync('PUT', '/syncs/progress', {
      document,
      progress: '2',
      percentage: 0.2,
      device: 'Kobo',
      device_id: 'KOBO-1',
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(stale.status).toBe(200);
    expect((await progressOf(reader.headers)).current_page).toBe(6);
    expect(await sync('GET', `/syncs/progress/${document}`)).toMatchObject({
      status: 200,
      body: { document, progress: '6', percentage: 0.6 },
    });
    expect((await historyOf(reader.headers))[0]).toMatchObject({ protocol: 'koreader', page: 2, applied: false });

    expect(
      (await sync('PUT', '/syncs/progress', { document, progress: '3', percentage: 0.3, device: 'Kobo', device_id: 'KOBO-1' })).status,
    ).toBe(200);
    expect((await progressOf(reader.headers)).current_page).toBe(3);
    expect(await sync('GET', `/syncs/progress/${document}`)).toMatchObject({ body: { progress: '3', percentage: 0.3, device: 'Kobo' } });
  });

  it('OPDS Progression: an older `modified` is kept in the history (protocol opds2) and answered 409', async () => {
    const reader = await createUser(t, 'reader');
    await call(t, reader.headers, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 6 });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/opds/v2/books/${book.id}/progression`,
      headers: { ...basic(reader.username, reader.password), 'content-type': 'application/opds-progression+json' },
      payload: JSON.stringify({ modified: minutesAgo(60), device: { id: 'thorium-1' }, progression: 0.2 }),
    });
    expect(res.statusCode).toBe(409);
    expect((await progressOf(reader.headers)).current_page).toBe(6);
    expect((await historyOf(reader.headers))[0]).toMatchObject({ protocol: 'opds2', device_id: 'hdr:thorium-1', page: 2, applied: false });
  });
});

describe('Migration 0014 from a database with history', () => {
  it('keeps every event, each applied and without a client time', async () => {
    const { database, drop } = await databaseAt('0013_koreader_sync');
    try {
      const at = '2024-03-01T10:00:00.000Z';
      const db = database.db;
      await db
        .insertInto('users')
        .values({
          id: 'u1',
          username: 'u1',
          username_key: 'u1',
          email: 'u1@x.org',
          email_key: 'u1@x.org',
          password_hash: 'x',
          role: 'reader',
          created_at: at,
          updated_at: at,
        } as never)
        .execute();
      await db
        .insertInto('libraries')
        .values({ id: 'l1', name: 'L', path: '/lib', scanning_config: '{}', created_at: at, updated_at: at } as never)
        .execute();
      await db
        .insertInto('series')
        .values({ id: 's1', library_id: 'l1', path: 'S', name: 'S', sort_name: 's', created_at: at, updated_at: at } as never)
        .execute();
      await db
        .insertInto('books')
        .values({
          id: 'b1',
          library_id: 'l1',
          series_id: 's1',
          path: 'S/b1.cbz',
          file_name: 'b1.cbz',
          size: 1,
          mtime_ms: 1,
          page_count: 10,
          title: 'b1',
          created_at: at,
          updated_at: at,
        } as never)
        .execute();
      const events = [
        {
          id: 'e1',
          user_id: 'u1',
          book_id: 'b1',
          device_id: 'hdr:kobo',
          protocol: 'colophon',
          position: '{"current_page":3}',
          page: 3,
          percentage: 0.3,
          is_completed: 0,
          received_at: at,
        },
        {
          id: 'e2',
          user_id: 'u1',
          book_id: 'b1',
          device_id: 'key:k1',
          protocol: 'koreader',
          position: '{"progress":"5"}',
          page: 5,
          percentage: 0.5,
          is_completed: 0,
          received_at: '2024-03-02T10:00:00.000Z',
        },
      ];
      await db
        .insertInto('progress_events')
        .values(events as never)
        .execute();

      await migrateToLatest(database);

      const rows = await db.selectFrom('progress_events').selectAll().orderBy('id').execute();
      expect(
        rows.map((r) => ({
          ...r,
          page: Number(r.page),
          percentage: Number(r.percentage),
          is_completed: Number(r.is_completed),
          applied: Number(r.applied),
        })),
      ).toEqual(events.map((e) => ({ ...e, client_at: null, client_entry_id: null, applied: 1 })));
    } finally {
      await drop();
    }
  });
});
