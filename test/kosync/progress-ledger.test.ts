import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { makeCbz } from '../media/fixtures.js';
import { createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { databaseAt } from '../helpers/migrations.js';

interface Book {
  id: string;
  title: string;
  page_count: number;
}

describe('Progress ledger: every write is an event, the progress row stays the latest', () => {
  let t: CatalogTestApp;
  let books: Book[];

  beforeAll(async () => {
    t = await createCatalogApp();
    await scannedLibrary(t, async (dir) => {
      await makeCbz(path.join(dir, 'Saga'), 'Saga 1.cbz', { pages: 4, pageSize: { width: 40, height: 60 } });
    });
    books = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data;
  }, 60_000);
  afterAll(() => t?.close());

  const events = (userId: string, bookId: string) =>
    t.database.db
      .selectFrom('progress_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('book_id', '=', bookId)
      .orderBy('received_at')
      .orderBy('id')
      .execute();

  it('PUT, mark-read and clear each append one event with device, protocol, the position as given and the normalised page and percentage', async () => {
    const reader = await createUser(t, 'reader');
    const book = books[0]!;
    const key = await createApiKey(t, reader.headers, { name: 'Phone' });
    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 2 })).status).toBe(200);
    expect((await call(t, { 'x-api-key': key.key }, 'POST', `/api/v1/books/${book.id}/read`)).status).toBeLessThan(300);
    expect((await call(t, reader.headers, 'DELETE', `/api/v1/books/${book.id}/progress`)).status).toBe(204);

    const rows = await events(reader.id, book.id);
    expect(
      rows.map((r) => ({
        protocol: r.protocol,
        page: Number(r.page),
        percentage: Number(r.percentage),
        is_completed: Number(r.is_completed),
        position: JSON.parse(r.position),
      })),
    ).toEqual([
      { protocol: 'colophon', page: 2, percentage: 0.5, is_completed: 0, position: { current_page: 2 } },
      { protocol: 'colophon', page: 4, percentage: 1, is_completed: 1, position: { is_completed: true } },
      { protocol: 'colophon', page: 0, percentage: 0, is_completed: 0, position: { cleared: true } },
    ]);
    expect(rows[1]!.device_id).toBe(`key:${key.id}`);
    expect(rows[0]!.device_id).not.toBe(rows[1]!.device_id);
  });

  it('the current position is the last write received, whatever device wrote it', async () => {
    const reader = await createUser(t, 'reader');
    const book = books[0]!;
    await call(t, { ...reader.headers, 'x-device-id': 'tablet' }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 3 });
    await call(t, { ...reader.headers, 'x-device-id': 'phone' }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 1 });
    const current = await call<{ current_page: number; device_id: string }>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress`);
    expect(current.body).toMatchObject({ current_page: 1, device_id: 'hdr:phone' });
    const rows = await events(reader.id, book.id);
    expect(rows.map((r) => [r.device_id, Number(r.page)])).toEqual([
      ['hdr:tablet', 3],
      ['hdr:phone', 1],
    ]);
  });

  interface HistoryEvent {
    id: string;
    book_id: string;
    device_id: string;
    protocol: string;
    position: Record<string, unknown>;
    page: number;
    percentage: number;
    is_completed: boolean;
    received_at: string;
  }

  it('GET /books/{id}/progress/history pages through the events newest first, with device and protocol', async () => {
    const reader = await createUser(t, 'reader');
    const book = books[0]!;
    for (const [device, page] of [
      ['tablet', 1],
      ['phone', 2],
      ['tablet', 3],
    ] as const) {
      await call(t, { ...reader.headers, 'x-device-id': device }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: page });
    }
    const first = await call<Paged<HistoryEvent> & { total: number }>(
      t,
      reader.headers,
      'GET',
      `/api/v1/books/${book.id}/progress/history?pageSize=2`,
    );
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.data.map((e) => [e.device_id, e.protocol, e.page, e.percentage, e.position])).toEqual([
      ['hdr:tablet', 'colophon', 3, 0.75, { current_page: 3 }],
      ['hdr:phone', 'colophon', 2, 0.5, { current_page: 2 }],
    ]);
    const second = await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress/history?pageSize=2&page=2`);
    expect(second.body.data.map((e) => e.page)).toEqual([1]);
    const other = await createUser(t, 'reader');
    expect((await call<Paged<HistoryEvent>>(t, other.headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data).toEqual([]);
    expect((await call(t, reader.headers, 'GET', '/api/v1/books/00000000-0000-7000-8000-000000000000/progress/history')).status).toBe(404);
  });

  it("POST /books/{id}/progress/restore puts an earlier position back, as a new event; others' and cleared events are refused", async () => {
    const reader = await createUser(t, 'reader');
    const book = books[0]!;
    await call(t, { ...reader.headers, 'x-device-id': 'kobo' }, 'PUT', `/api/v1/books/${book.id}/progress`, { current_page: 2 });
    await call(t, { ...reader.headers, 'x-device-id': 'phone' }, 'PUT', `/api/v1/books/${book.id}/progress`, {
      current_page: 4,
      is_completed: false,
    });
    const history = (await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data;
    const good = history.find((e) => e.page === 2)!;

    const restored = await call<{ current_page: number; is_completed: boolean; device_id: string }>(
      t,
      { ...reader.headers, 'x-device-id': 'web' },
      'POST',
      `/api/v1/books/${book.id}/progress/restore`,
      { event_id: good.id },
    );
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ current_page: 2, is_completed: false, device_id: 'hdr:web' });
    expect((await call<{ current_page: number }>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress`)).body.current_page).toBe(2);
    const after = (await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data;
    expect(after).toHaveLength(3);
    expect(after[0]).toMatchObject({ page: 2, device_id: 'hdr:web', position: { current_page: 2, restored_from: good.id } });

    const other = await createUser(t, 'reader');
    expect((await call(t, other.headers, 'POST', `/api/v1/books/${book.id}/progress/restore`, { event_id: good.id })).status).toBe(404);
    expect((await call(t, reader.headers, 'POST', `/api/v1/books/${book.id}/progress/restore`, { event_id: 'missing' })).status).toBe(404);
    await call(t, reader.headers, 'DELETE', `/api/v1/books/${book.id}/progress`);
    const cleared = (await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data[0]!;
    expect(cleared.position).toEqual({ cleared: true });
    const refused = await call<{ error: string }>(t, reader.headers, 'POST', `/api/v1/books/${book.id}/progress/restore`, {
      event_id: cleared.id,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBeDefined();
  });
});

describe('Migration 0013 from a database with progress', () => {
  it('keeps every progress row and backfills one event per row with its page, percentage, device and time', async () => {
    const { database, drop } = await databaseAt('0011_series_read_counts');
    try {
      const at = '2024-03-01T10:00:00.000Z';
      const db = database.db;
      for (const id of ['u1', 'u2']) {
        await db
          .insertInto('users')
          .values({
            id,
            username: id,
            username_key: id,
            email: `${id}@x.org`,
            email_key: `${id}@x.org`,
            password_hash: 'x',
            role: 'reader',
            created_at: at,
            updated_at: at,
          } as never)
          .execute();
      }
      await db
        .insertInto('libraries')
        .values({ id: 'l1', name: 'L', path: '/lib', scanning_config: '{}', created_at: at, updated_at: at } as never)
        .execute();
      await db
        .insertInto('series')
        .values({ id: 's1', library_id: 'l1', path: 'S', name: 'S', sort_name: 's', created_at: at, updated_at: at } as never)
        .execute();
      for (const [id, pages] of [
        ['b1', 10],
        ['b2', 4],
      ] as const) {
        await db
          .insertInto('books')
          .values({
            id,
            library_id: 'l1',
            series_id: 's1',
            path: `S/${id}.cbz`,
            file_name: `${id}.cbz`,
            size: 1,
            mtime_ms: 1,
            page_count: pages,
            title: id,
            created_at: at,
            updated_at: at,
          } as never)
          .execute();
      }
      const progress = [
        {
          user_id: 'u1',
          book_id: 'b1',
          current_page: 3,
          is_completed: 0,
          started_at: at,
          updated_at: '2024-03-02T00:00:00.000Z',
          completed_at: null,
          device_id: 'hdr:kobo',
        },
        {
          user_id: 'u1',
          book_id: 'b2',
          current_page: 4,
          is_completed: 1,
          started_at: at,
          updated_at: '2024-03-03T00:00:00.000Z',
          completed_at: '2024-03-03T00:00:00.000Z',
          device_id: null,
        },
        {
          user_id: 'u2',
          book_id: 'b1',
          current_page: 10,
          is_completed: 0,
          started_at: at,
          updated_at: '2024-03-04T00:00:00.000Z',
          completed_at: null,
          device_id: 'key:k1',
        },
      ];
      await db.insertInto('read_progress').values(progress).execute();

      await migrateToLatest(database);

      expect(await db.selectFrom('read_progress').selectAll().orderBy('user_id').orderBy('book_id').execute()).toEqual(
        progress.map((p) => ({ ...p, current_page: p.current_page, is_completed: p.is_completed })),
      );
      const rows = await db.selectFrom('progress_events').selectAll().orderBy('received_at').execute();
      expect(
        rows.map((r) => ({
          user: r.user_id,
          book: r.book_id,
          device: r.device_id,
          protocol: r.protocol,
          page: Number(r.page),
          percentage: Number(r.percentage),
          done: Number(r.is_completed),
          at: r.received_at,
        })),
      ).toEqual([
        {
          user: 'u1',
          book: 'b1',
          device: 'hdr:kobo',
          protocol: 'migrated',
          page: 3,
          percentage: 0.3,
          done: 0,
          at: '2024-03-02T00:00:00.000Z',
        },
        {
          user: 'u1',
          book: 'b2',
          device: 'unknown',
          protocol: 'migrated',
          page: 4,
          percentage: 1,
          done: 1,
          at: '2024-03-03T00:00:00.000Z',
        },
        {
          user: 'u2',
          book: 'b1',
          device: 'key:k1',
          protocol: 'migrated',
          page: 10,
          percentage: 1,
          done: 0,
          at: '2024-03-04T00:00:00.000Z',
        },
      ]);
      expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    } finally {
      await drop();
    }
  });
});
