import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';

interface Book {
  id: string;
  title: string;
  series_id: string;
  page_count: number;
}
interface Progress {
  book_id: string;
  user_id: string;
  current_page: number;
  page_count: number;
  is_completed: boolean;
  progress: number;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
  device_id: string | null;
}

let t: CatalogTestApp;
let lib: { id: string; dir: string };
let all: Book[];
const book = (title: string) => all.find((b) => b.title === title)!;

beforeAll(async () => {
  t = await createCatalogApp();
  lib = await scannedLibrary(t, async (dir) => {
    for (const [series, count] of [
      ['Alpha', 3],
      ['Beta', 2],
      ['Gamma', 2],
      ['Delta', 2],
    ] as const) {
      for (let n = 1; n <= count; n++) {
        await makeCbz(path.join(dir, series), `${series} ${n}.cbz`, {
          pages: 4,
          pageSize: { width: 40, height: 60 },
          comicInfo: { Series: series, Number: String(n), Title: `${series} ${n}` },
        });
      }
    }
  });
  all = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=500')).body.data;
});
afterAll(() => t.close());

const put = (headers: Headers, id: string, body: unknown) =>
  call<Progress & { message: string }>(t, headers, 'PUT', `/api/v1/books/${id}/progress`, body);

describe('Progress rules', () => {
  it('PUT records current_page; GET reads it back; progress is the fraction read', async () => {
    const reader = await createUser(t, 'reader');
    const res = await put(reader.headers, book('Alpha 1').id, { current_page: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      book_id: book('Alpha 1').id,
      user_id: reader.id,
      current_page: 2,
      page_count: 4,
      is_completed: false,
      progress: 0.5,
      completed_at: null,
    });
    expect((await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${book('Alpha 1').id}/progress`)).body).toEqual(res.body);
  });

  it('camelCase is accepted too', async () => {
    const reader = await createUser(t, 'reader');
    expect((await put(reader.headers, book('Alpha 1').id, { currentPage: 3 })).body).toMatchObject({
      current_page: 3,
      is_completed: false,
    });
    expect((await put(reader.headers, book('Alpha 1').id, { isCompleted: true })).body).toMatchObject({
      current_page: 4,
      is_completed: true,
    });
  });

  it('current_page is validated against the page count', async () => {
    const reader = await createUser(t, 'reader');
    for (const page of [0, 5, -1, 1.5])
      expect((await put(reader.headers, book('Alpha 1').id, { current_page: page })).status, String(page)).toBe(400);
    expect((await put(reader.headers, book('Alpha 1').id, {})).status).toBe(400);
    expect((await put(reader.headers, '01890000-0000-7000-8000-000000000000', { current_page: 1 })).status).toBe(404);
  });

  it('completing sets current_page to the last page; reaching the last page completes; un-completing restarts', async () => {
    const reader = await createUser(t, 'reader');
    const done = await put(reader.headers, book('Alpha 2').id, { current_page: 1, is_completed: true });
    expect(done.body).toMatchObject({ current_page: 4, is_completed: true, progress: 1 });
    expect(done.body.completed_at).toEqual(expect.any(String));
    expect((await put(reader.headers, book('Alpha 3').id, { current_page: 4 })).body).toMatchObject({ is_completed: true });
    const again = await put(reader.headers, book('Alpha 2').id, { current_page: 2, is_completed: false });
    expect(again.body).toMatchObject({ current_page: 2, is_completed: false, completed_at: null });
  });

  it('DELETE clears; GET is then 404; POST read/unread', async () => {
    const reader = await createUser(t, 'reader');
    await put(reader.headers, book('Beta 1').id, { current_page: 2 });
    expect((await call(t, reader.headers, 'DELETE', `/api/v1/books/${book('Beta 1').id}/progress`)).status).toBe(204);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${book('Beta 1').id}/progress`)).status).toBe(404);
    const read = await call<Progress>(t, reader.headers, 'POST', `/api/v1/books/${book('Beta 1').id}/read`);
    expect(read.body).toMatchObject({ is_completed: true, current_page: 4 });
    expect((await call(t, reader.headers, 'POST', `/api/v1/books/${book('Beta 1').id}/unread`)).status).toBe(204);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${book('Beta 1').id}/progress`)).status).toBe(404);
  });

  it("progress is per user: one user never sees another's", async () => {
    const a = await createUser(t, 'reader');
    const b = await createUser(t, 'reader');
    await put(a.headers, book('Gamma 1').id, { current_page: 3 });
    expect((await call(t, b.headers, 'GET', `/api/v1/books/${book('Gamma 1').id}/progress`)).status).toBe(404);
    expect((await call<Paged<Progress>>(t, b.headers, 'GET', '/api/v1/progress')).body.total).toBe(0);
    expect((await call<{ progress: unknown }>(t, b.headers, 'GET', `/api/v1/books/${book('Gamma 1').id}`)).body.progress).toBeNull();
    expect(
      (await call<{ progress: { current_page: number } }>(t, a.headers, 'GET', `/api/v1/books/${book('Gamma 1').id}`)).body.progress,
    ).toMatchObject({ current_page: 3 });
    expect((await call<Paged<Book>>(t, b.headers, 'GET', '/api/v1/books/in-progress')).body.total).toBe(0);
  });

  it('GET /progress, /progress/currently-reading, /books/in-progress, /books/recently-read, /series/in-progress', async () => {
    const reader = await createUser(t, 'reader');
    await put(reader.headers, book('Alpha 1').id, { current_page: 2 });
    await put(reader.headers, book('Beta 1').id, { is_completed: true });
    await put(reader.headers, book('Gamma 2').id, { current_page: 3 });
    const list = await call<Paged<Progress & { book: { title: string } }>>(t, reader.headers, 'GET', '/api/v1/progress');
    expect(list.body.data.map((p) => p.book.title)).toEqual(['Gamma 2', 'Beta 1', 'Alpha 1']);
    const reading = await call<Paged<Progress & { book: { title: string } }>>(
      t,
      reader.headers,
      'GET',
      '/api/v1/progress/currently-reading',
    );
    expect(reading.body.data.map((p) => p.book.title)).toEqual(['Gamma 2', 'Alpha 1']);
    expect((await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/in-progress')).body.data.map((b) => b.title)).toEqual([
      'Gamma 2',
      'Alpha 1',
    ]);
    expect((await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/recently-read')).body.data.map((b) => b.title)).toEqual([
      'Beta 1',
    ]);
    expect(
      (await call<Paged<{ name: string }>>(t, reader.headers, 'GET', '/api/v1/series/in-progress')).body.data.map((s) => s.name),
    ).toEqual(['Gamma', 'Alpha']);
  });
});

describe('On Deck', () => {
  it('completed + nothing in progress → the next unread book; in progress → absent; nothing completed → absent', async () => {
    const reader = await createUser(t, 'reader');
    const deck = async () => (await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/on-deck')).body;
    expect((await deck()).total).toBe(0);
    await put(reader.headers, book('Alpha 1').id, { is_completed: true });
    expect((await deck()).data.map((b) => b.title)).toEqual(['Alpha 2']);
    // a book in progress in the series removes it
    await put(reader.headers, book('Alpha 2').id, { current_page: 2 });
    expect((await deck()).data.map((b) => b.title)).toEqual([]);
    // nothing completed in Gamma: absent even with progress elsewhere
    await put(reader.headers, book('Gamma 1').id, { current_page: 1 });
    expect((await deck()).total).toBe(0);
    // finishing Alpha 2 → Alpha 3; finishing Beta 1 later → Beta first (most recently active series first)
    await put(reader.headers, book('Alpha 2').id, { is_completed: true });
    await new Promise((r) => setTimeout(r, 5));
    await put(reader.headers, book('Beta 1').id, { is_completed: true });
    expect((await deck()).data.map((b) => b.title)).toEqual(['Beta 2', 'Alpha 3']);
    // skipping ahead: the first book without progress is next, by number
    await put(reader.headers, book('Delta 2').id, { is_completed: true });
    expect((await deck()).data.map((b) => b.title)).toEqual(['Delta 1', 'Beta 2', 'Alpha 3']);
    const paged = (await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/on-deck?pageSize=2&page=2')).body;
    expect(paged).toMatchObject({ total: 3, totalPages: 2 });
    expect(paged.data.map((b) => b.title)).toEqual(['Alpha 3']);
    // a series read to the end has nothing on deck
    await put(reader.headers, book('Alpha 3').id, { is_completed: true });
    expect((await deck()).data.map((b) => b.title)).toEqual(['Delta 1', 'Beta 2']);
  });
});

describe('Permissions: progress endpoints use the progress permissions only', () => {
  it('a reader_app key reads pages and writes progress but cannot create a library', async () => {
    const reader = await createUser(t, 'maintainer');
    const { key } = await createApiKey(t, reader.headers, { name: 'Kobo', preset: 'reader_app' });
    const h = { 'x-api-key': key };
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/books/${book('Alpha 1').id}/pages/1`, headers: h })).statusCode).toBe(200);
    expect((await put(h, book('Alpha 1').id, { current_page: 2 })).status).toBe(200);
    expect((await call(t, h, 'GET', '/api/v1/reading-stats')).status).toBe(200);
    const created = await call<{ error: string }>(t, h, 'POST', '/api/v1/libraries', { name: 'x', path: lib.dir });
    expect(created.status).toBe(403);
    expect(created.body.error).toBe('Forbidden');
  });

  it('a key with only progress-read/progress-write manages progress without book permissions', async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers, { name: 'sync', permissions: ['progress-read', 'progress-write'] });
    const h = { 'x-api-key': key };
    expect((await call(t, h, 'GET', `/api/v1/books/${book('Beta 2').id}`)).status).toBe(403);
    expect((await put(h, book('Beta 2').id, { current_page: 1 })).status).toBe(200);
    expect((await call(t, h, 'GET', `/api/v1/books/${book('Beta 2').id}/progress`)).status).toBe(200);
    expect((await call(t, h, 'POST', `/api/v1/books/${book('Beta 2').id}/read`)).status).toBe(200);
    expect((await call(t, h, 'GET', '/api/v1/progress')).status).toBe(200);
    expect((await call(t, h, 'GET', '/api/v1/reading-stats')).status).toBe(200);
    expect((await call(t, h, 'GET', `/api/v1/books/${book('Beta 2').id}/pages/1`)).status).toBe(403);
  });

  it('book permissions do not grant progress; progress-read alone cannot write', async () => {
    const reader = await createUser(t, 'maintainer');
    const mobile = { 'x-api-key': (await createApiKey(t, reader.headers, { name: 'm', preset: 'mobile_app' })).key };
    expect((await call(t, mobile, 'GET', `/api/v1/books/${book('Beta 2').id}`)).status).toBe(200);
    expect((await put(mobile, book('Beta 2').id, { current_page: 1 })).status).toBe(403);
    expect((await call(t, mobile, 'GET', `/api/v1/books/${book('Beta 2').id}/progress`)).status).toBe(403);
    expect((await call(t, mobile, 'GET', '/api/v1/reading-stats')).status).toBe(403);
    expect((await call(t, mobile, 'POST', `/api/v1/books/${book('Beta 2').id}/read`)).status).toBe(403);
    const readOnly = { 'x-api-key': (await createApiKey(t, reader.headers, { name: 'r', permissions: ['progress-read'] })).key };
    expect((await put(readOnly, book('Beta 2').id, { current_page: 1 })).status).toBe(403);
    expect((await call(t, readOnly, 'GET', '/api/v1/reading-stats')).status).toBe(200);
  });
});

interface Stats {
  books_completed: number;
  pages_read: number;
  reading_seconds: number;
  current_streak_days: number;
  longest_streak_days: number;
  days: { date: string; pages_read: number; books_completed: number }[];
  devices: { device_id: string; kind: string; name: string; pages_read: number; books_completed: number }[];
  top_series: { name: string; pages_read: number }[];
  removed_from_library: null | {
    label: string;
    pages_read: number;
    books_completed: number;
    books: { title: string; series_name: string }[];
  };
}

describe('Reading statistics and devices (Authentication rule 9)', () => {
  it('attributes activity to the API key, else X-Device-Id, else a User-Agent hash', async () => {
    const reader = await createUser(t, 'reader');
    const { id: keyId, key } = await createApiKey(t, reader.headers, { name: 'Kobo Libra', preset: 'reader_app' });
    await put({ 'x-api-key': key, 'x-device-id': 'ignored-when-a-key-is-used' }, book('Alpha 1').id, { current_page: 2 });
    await put({ ...reader.headers, 'x-device-id': 'tablet-42' }, book('Beta 1').id, { current_page: 3 });
    await put({ ...reader.headers, 'user-agent': 'Reader/1.0' }, book('Gamma 1').id, { current_page: 1 });
    await put({ ...reader.headers, 'user-agent': 'Reader/1.0' }, book('Gamma 1').id, { current_page: 2 });
    await put({ ...reader.headers, 'user-agent': 'Other/2.0' }, book('Delta 1').id, { current_page: 1 });
    const stats = (await call<Stats>(t, reader.headers, 'GET', '/api/v1/reading-stats')).body;
    const devices = Object.fromEntries(stats.devices.map((d) => [d.device_id, d]));
    expect(devices[`key:${keyId}`]).toMatchObject({ kind: 'api_key', name: 'Kobo Libra', pages_read: 2 });
    expect(devices['hdr:tablet-42']).toMatchObject({ kind: 'header', name: 'tablet-42', pages_read: 3 });
    const ua = stats.devices.filter((d) => d.kind === 'user_agent');
    expect(ua.map((d) => [d.name, d.pages_read]).sort()).toEqual([
      ['Other/2.0', 1],
      ['Reader/1.0', 2],
    ]);
    expect(ua.every((d) => /^ua:[0-9a-f]{16}$/.test(d.device_id))).toBe(true);
    expect((await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${book('Alpha 1').id}/progress`)).body.device_id).toBe(
      `key:${keyId}`,
    );
  });

  it('counts books completed, pages, time, streaks, days and top series; purged books move to "Removed from library"', async () => {
    const reader = await createUser(t, 'reader');
    await put(reader.headers, book('Alpha 1').id, { current_page: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    await put(reader.headers, book('Alpha 1').id, { current_page: 3 });
    await put(reader.headers, book('Alpha 1').id, { is_completed: true });
    await put(reader.headers, book('Delta 2').id, { is_completed: true });
    let stats = (await call<Stats>(t, reader.headers, 'GET', '/api/v1/reading-stats?days=7')).body;
    expect(stats).toMatchObject({
      books_completed: 2,
      pages_read: 8,
      current_streak_days: 1,
      longest_streak_days: 1,
      removed_from_library: null,
    });
    expect(stats.reading_seconds).toBeGreaterThanOrEqual(1);
    expect(stats.days).toHaveLength(7);
    expect(stats.days.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10), pages_read: 8, books_completed: 2 });
    expect(stats.top_series.map((s) => s.name)).toEqual(['Alpha', 'Delta']);

    // Purge Delta 2: its progress goes with it; the statistics stay under "Removed from library".
    await rm(path.join(lib.dir, 'Delta', 'Delta 2.cbz'));
    await scan(t, lib.id);
    expect((await api(t, 'DELETE', `/api/v1/libraries/${lib.id}/purge-deleted`)).status).toBe(200);
    expect(await t.database.db.selectFrom('read_progress').select('book_id').where('book_id', '=', book('Delta 2').id).execute()).toEqual(
      [],
    );
    stats = (await call<Stats>(t, reader.headers, 'GET', '/api/v1/reading-stats')).body;
    expect(stats).toMatchObject({ books_completed: 2, pages_read: 8 });
    expect(stats.top_series.map((s) => s.name)).toEqual(['Alpha']);
    expect(stats.removed_from_library).toMatchObject({
      label: 'Removed from library',
      pages_read: 4,
      books_completed: 1,
      books: [{ title: 'Delta 2', series_name: 'Delta' }],
    });
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${book('Delta 2').id}`)).status).toBe(404);
  });
});
