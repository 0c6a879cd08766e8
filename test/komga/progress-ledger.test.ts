import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { enableKomga, expectKomga, send } from './helpers.js';

interface Book {
  id: string;
  title: string;
  series_id: string;
  number: string | null;
}
interface HistoryEvent {
  device_id: string;
  protocol: string;
  page: number;
  is_completed: boolean;
  position: Record<string, unknown>;
}
interface Tracker {
  booksReadCount: number;
  booksInProgressCount: number;
  lastReadContinuousNumberSort: number;
}

const BASE = '/komga/api/v1';
const MIHON = { 'user-agent': 'Mihon v0.17.0 (app.mihon)' };

describe("Komga API and Mihon's tracker write the ledger (protocol komga) and read every protocol's position", () => {
  let t: CatalogTestApp;
  let books: Book[];
  const files: string[] = [];

  beforeAll(async () => {
    t = await createCatalogApp(enableKomga);
    await scannedLibrary(t, async (dir) => {
      for (const n of [1, 2, 3]) {
        files.push(
          await makeCbz(dir, `Saga/Saga ${n}.cbz`, {
            pages: 5,
            pageSize: { width: 40 + n, height: 60 },
            comicInfo: { Series: 'Saga', Number: String(n), Title: `Saga ${n}` },
          }),
        );
      }
    });
    books = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data.sort((a, b) => Number(a.number) - Number(b.number));
  }, 60_000);
  afterAll(() => t?.close());

  const historyOf = async (headers: Record<string, string>, id: string) =>
    (await call<Paged<HistoryEvent>>(t, headers, 'GET', `/api/v1/books/${id}/progress/history`)).body.data;

  it('PATCH read-progress and DELETE are komga events, with the API key as device, else the User-Agent', async () => {
    const reader = await createUser(t, 'reader');
    const { key, id: keyId } = await createApiKey(t, reader.headers, { name: 'Pixel 8 Mihon' });
    const book = books[0]!;
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress`, { ...MIHON, 'x-api-key': key }, { page: 2 })).status).toBe(
      204,
    );
    expect(
      (
        await send(
          t,
          'PATCH',
          `${BASE}/books/${book.id}/read-progress`,
          { ...MIHON, ...basic(reader.username, reader.password) },
          { page: 4, completed: false },
        )
      ).status,
    ).toBe(204);
    expect((await send(t, 'DELETE', `${BASE}/books/${book.id}/read-progress`, { ...MIHON, 'x-api-key': key })).status).toBe(204);
    const history = await historyOf(reader.headers, book.id);
    expect(history.map((e) => [e.protocol, e.page, e.position])).toEqual([
      ['komga', 0, { cleared: true }],
      ['komga', 4, { page: 4, completed: false }],
      ['komga', 2, { page: 2 }],
    ]);
    expect(history[0]!.device_id).toBe(`key:${keyId}`);
    expect(history[2]!.device_id).toBe(`key:${keyId}`);
    expect(history[1]!.device_id).toMatch(/^ua:[0-9a-f]{16}$/);
    const devices = await t.database.db.selectFrom('reading_devices').selectAll().where('user_id', '=', reader.id).execute();
    expect(devices.map((d) => d.name).sort()).toEqual(['Mihon v0.17.0 (app.mihon)', 'Pixel 8 Mihon']);
  });

  it("the tracker's mark-read (v2 and v1) and series read-progress are komga events", async () => {
    const reader = await createUser(t, 'reader');
    const auth = { ...MIHON, ...basic(reader.username, reader.password) };
    const seriesId = books[0]!.series_id;
    expect(
      (await send(t, 'PUT', `/komga/api/v2/series/${seriesId}/read-progress/tachiyomi`, auth, { lastBookNumberSortRead: 1 })).status,
    ).toBe(204);
    expect((await send(t, 'PUT', `${BASE}/series/${seriesId}/read-progress/tachiyomi`, auth, { lastBookRead: 2 })).status).toBe(204);
    expect((await send(t, 'POST', `${BASE}/series/${seriesId}/read-progress`, auth)).status).toBe(204);
    for (const book of books) {
      expect((await historyOf(reader.headers, book.id)).map((e) => [e.protocol, e.is_completed])).toEqual([['komga', true]]);
    }
    expect((await send(t, 'DELETE', `${BASE}/series/${seriesId}/read-progress`, auth)).status).toBe(204);
    expect((await historyOf(reader.headers, books[2]!.id)).map((e) => [e.protocol, e.position])).toEqual([
      ['komga', { cleared: true }],
      ['komga', { is_completed: true }],
    ]);
  });

  it('the tracker and the Komga book show the position KOReader or the web wrote', async () => {
    const reader = await createUser(t, 'reader');
    const auth = { ...MIHON, ...basic(reader.username, reader.password) };
    const sync = koreaderClient(t, (await createApiKey(t, reader.headers, { name: 'Kobo' })).key);
    const seriesId = books[0]!.series_id;
    // KOReader finishes book 1 (percentage 1) and is on page 3 of book 2; the web reader is on page 2 of book 3.
    expect(
      (
        await sync('PUT', '/syncs/progress', {
          document: koreaderPartialMd5(files[0]!),
          progress: '5',
          percentage: 1,
          device: 'Kobo',
          device_id: 'K1',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await sync('PUT', '/syncs/progress', {
          document: koreaderPartialMd5(files[1]!),
          progress: '3',
          percentage: 0.6,
          device: 'Kobo',
          device_id: 'K1',
        })
      ).status,
    ).toBe(200);
    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${books[2]!.id}/progress`, { current_page: 2 })).status).toBe(200);

    const tracker = await send<Tracker>(t, 'GET', `/komga/api/v2/series/${seriesId}/read-progress/tachiyomi`, auth);
    expect(tracker.status).toBe(200);
    expectKomga(tracker.body, 'TachiyomiReadProgressV2Dto');
    expect(tracker.body).toMatchObject({ booksReadCount: 1, booksInProgressCount: 2, lastReadContinuousNumberSort: 1 });
    const second = await send<{ readProgress?: { page: number; completed: boolean } }>(t, 'GET', `${BASE}/books/${books[1]!.id}`, auth);
    expectKomga(second.body, 'BookDto');
    expect(second.body.readProgress).toMatchObject({ page: 3, completed: false });
    const third = await send<{ readProgress?: { page: number; completed: boolean } }>(t, 'GET', `${BASE}/books/${books[2]!.id}`, auth);
    expect(third.body.readProgress).toMatchObject({ page: 2, completed: false });
  });
});
