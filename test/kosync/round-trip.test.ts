import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub, makePdf } from '../media/fixtures.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { get, linkOf, parseXml, PSE_REL, type AtomEntry } from '../opds/helpers.js';

interface Book {
  id: string;
  title: string;
  series_id: string;
  page_count: number;
}
interface Progress {
  current_page: number;
  page_count: number;
  progress: number;
  is_completed: boolean;
}
interface HistoryEvent {
  protocol: string;
  device_id: string;
  page: number;
  percentage: number;
}

const MIHON = { 'user-agent': 'Mihon v0.17.0 (app.mihon)' };

describe("One position across KOReader, the native API, Komga, OPDS and Mihon's tracker", () => {
  let t: CatalogTestApp;
  let lib: { id: string; dir: string };
  const files: Record<string, string> = {};
  let books: Record<string, Book>;

  beforeAll(async () => {
    t = await createCatalogApp({ komga_api: { enabled: true } });
    lib = await scannedLibrary(t, async (dir) => {
      files.cbz = await makeCbz(dir, 'Comic/comic.cbz', {
        pages: 6,
        pageSize: { width: 40, height: 60 },
        comicInfo: { Title: 'Comic', Series: 'Comic', Number: '1' },
      });
      files.epub = await makeEpub(dir, 'Novel/novel.epub', { pages: 4, metadata: { title: 'Novel' } });
      files.pdf = await makePdf(dir, 'Paper/paper.pdf', { pages: 3, info: { Title: 'Paper' } });
    });
    const list = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data;
    books = {
      cbz: list.find((b) => b.title === 'Comic')!,
      epub: list.find((b) => b.title === 'Novel')!,
      pdf: list.find((b) => b.title === 'Paper')!,
    };
  }, 60_000);
  afterAll(() => t?.close());

  it('CBZ: KOReader PUT -> native GET -> Komga read-progress -> OPDS PSE lastRead -> Mihon tracker -> KOReader GET', async () => {
    const reader = await createUser(t, 'reader');
    const kobo = await createApiKey(t, reader.headers, { name: 'Kobo' });
    const mihonKey = (await createApiKey(t, reader.headers, { name: 'Pixel Mihon' })).key;
    // The URL the user pasted into KOReader carries the key; KOReader still sends its own user name field.
    const sync = koreaderClient(t, 'reader on kobo', `/koreader/${kobo.key}`);
    const book = books.cbz!;
    const document = koreaderPartialMd5(files.cbz!);

    // 1. KOReader on page 2 of 6.
    const put = await sync('PUT', '/syncs/progress', {
      document,
      progress: '2',
      percentage: 0.3333,
      device: 'Kobo Libra 2',
      device_id: 'KOBO-1',
    });
    expect(put).toMatchObject({ status: 200, body: { document, timestamp: expect.any(Number) } });

    // 2. The native API (the web reader) shows the page and percentage.
    const native = await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress`);
    expect(native.body).toMatchObject({ current_page: 2, page_count: 6, progress: 0.3333, is_completed: false });

    // 3. A Komga client reads it and moves it to page 4.
    const komgaBook = await send(`/komga/api/v1/books/${book.id}`, { ...MIHON, 'x-api-key': mihonKey });
    expect(komgaBook.body.readProgress).toMatchObject({ page: 2, completed: false });
    expect(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/komga/api/v1/books/${book.id}/read-progress`,
          headers: { ...MIHON, 'x-api-key': mihonKey },
          payload: { page: 4 },
        })
      ).statusCode,
    ).toBe(204);

    // 4. An OPDS reader sees page 4 as pse:lastRead.
    const entry = (
      parseXml((await get(t, `/opds/v1.2/books/${book.id}`, basic(reader.username, reader.password))).body).entry as AtomEntry[]
    )[0]!;
    const pse = linkOf(entry.link, PSE_REL)!;
    expect(pse['@pse:lastRead']).toBe('4');
    expect(pse['@pse:lastReadDate']).toBe(
      (await call<{ updated_at: string }>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress`)).body.updated_at,
    );

    // 5. Mihon's tracker reads the series as in progress, then marks the chapter read.
    const trackerUrl = `/komga/api/v2/series/${book.series_id}/read-progress/tachiyomi`;
    expect((await send(trackerUrl, { ...MIHON, 'x-api-key': mihonKey })).body).toMatchObject({
      booksCount: 1,
      booksInProgressCount: 1,
      booksReadCount: 0,
      lastReadContinuousNumberSort: 0,
    });
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: trackerUrl,
          headers: { ...MIHON, 'x-api-key': mihonKey },
          payload: { lastBookNumberSortRead: 1 },
        })
      ).statusCode,
    ).toBe(204);
    expect((await send(trackerUrl, { ...MIHON, 'x-api-key': mihonKey })).body).toMatchObject({
      booksReadCount: 1,
      lastReadContinuousNumberSort: 1,
    });

    // 6. Back on the Kobo: KOReader gets the last page, finished.
    const back = await sync('GET', `/syncs/progress/${document}`);
    expect(back).toMatchObject({ status: 200, body: { document, progress: '6', percentage: 1, timestamp: expect.any(Number) } });

    // Every step is in the history, by protocol and device.
    const history = (await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress/history`)).body.data;
    expect(history.map((e) => [e.protocol, e.page])).toEqual([
      ['komga', 6],
      ['komga', 4],
      ['koreader', 2],
    ]);
    expect(history[2]!.device_id).toBe(`key:${kobo.id}`);
  });

  for (const format of ['epub', 'pdf'] as const) {
    it(`${format.toUpperCase()}: KOReader PUT -> native GET -> Komga read-progress -> KOReader GET`, async () => {
      const reader = await createUser(t, 'reader');
      const sync = koreaderClient(t, (await createApiKey(t, reader.headers, { name: 'Kindle' })).key);
      const book = books[format]!;
      const document = koreaderPartialMd5(files[format]!);
      const progress = format === 'epub' ? '/body/DocFragment[2]/body/p[3]/text().5' : '2';
      const percentage = format === 'epub' ? 0.4 : 0.6667;
      expect((await sync('PUT', '/syncs/progress', { document, progress, percentage, device: 'Kindle', device_id: 'K-1' })).status).toBe(
        200,
      );
      expect((await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${book.id}/progress`)).body).toMatchObject({
        current_page: 2,
        is_completed: false,
      });
      // KOReader's own position comes back as sent while it is the latest.
      expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({ progress, percentage });

      const auth = { ...MIHON, ...basic(reader.username, reader.password) };
      expect(
        (await t.app.inject({ method: 'PATCH', url: `/komga/api/v1/books/${book.id}/read-progress`, headers: auth, payload: { page: 3 } }))
          .statusCode,
      ).toBe(204);
      const expected = format === 'epub' ? { progress: '/body/DocFragment[3]/body', percentage: 0.75 } : { progress: '3', percentage: 1 };
      expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({ document, ...expected });
    });
  }

  it("an unknown document is attached when a scan adds its book, without waiting for KOReader's next sync", async () => {
    const reader = await createUser(t, 'reader');
    const kobo = await createApiKey(t, reader.headers, { name: 'Kobo' });
    const sync = koreaderClient(t, kobo.key);
    const outside = await makeCbz(makeTempDir('kosync-later-'), 'later.cbz', {
      pages: 8,
      pageSize: { width: 33, height: 44 },
      comicInfo: { Title: 'Later' },
    });
    const document = koreaderPartialMd5(outside);
    expect(
      (await sync('PUT', '/syncs/progress', { document, progress: '5', percentage: 0.625, device: 'Kobo', device_id: 'KOBO-9' })).status,
    ).toBe(200);

    await copyFile(outside, path.join(lib.dir, 'Comic', 'later.cbz'));
    await scan(t, lib.id);
    const later = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data.find((b) => b.title === 'Later')!;
    expect(later).toBeDefined();
    let progress = await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${later.id}/progress`);
    for (let i = 0; i < 50 && progress.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 100));
      progress = await call<Progress>(t, reader.headers, 'GET', `/api/v1/books/${later.id}/progress`);
    }
    expect(progress.body).toMatchObject({ current_page: 5, progress: 0.625 });
    const history = (await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${later.id}/progress/history`)).body.data;
    expect(history.map((e) => [e.protocol, e.device_id, e.page])).toEqual([['koreader', `key:${kobo.id}`, 5]]);
    // KOReader then gets its own position back, and nothing is written twice.
    expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({ document, progress: '5', percentage: 0.625 });
    expect((await call<Paged<HistoryEvent>>(t, reader.headers, 'GET', `/api/v1/books/${later.id}/progress/history`)).body.total).toBe(1);
  }, 60_000);

  async function send(url: string, headers: Record<string, string>) {
    const res = await t.app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> & { readProgress?: unknown } };
  }
});
