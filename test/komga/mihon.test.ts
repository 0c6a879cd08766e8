import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { enableKomga, expectKomga, send, sessionCookie, writeKomgaCorpus } from './helpers.js';

/**
 * Replays what Mihon's Komga extension (keiyoushi/extensions-source, src/all/komga) sends: the filter options it
 * loads, popular / latest / search series (0-based pages, `deleted=false`, Komga sort names), the series, its
 * chapter list (`unpaged=true&media_status=READY&deleted=false`), the page list, page images (with `?convert=png`
 * for types it cannot show) and marking read. Every JSON answer is checked against Komga's own schemas.
 */

interface Series {
  id: string;
  name: string;
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  metadata: {
    title: string;
    status: string;
    genres: string[];
    tags: string[];
    readingDirection: string;
    ageRating?: number;
    language: string;
    publisher: string;
  };
  booksMetadata: { authors: { name: string; role: string }[]; tags: string[]; releaseDate?: string };
}
interface Book {
  id: string;
  seriesId: string;
  seriesTitle: string;
  name: string;
  number: number;
  size: string;
  sizeBytes: number;
  media: { status: string; mediaProfile: string; pagesCount: number; epubDivinaCompatible: boolean };
  metadata: { title: string; number: string; numberSort: number; releaseDate?: string; authors: { name: string; role: string }[] };
  readProgress?: { page: number; completed: boolean };
}
interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  numberOfElements: number;
  first: boolean;
  last: boolean;
  empty: boolean;
}
interface PageDto {
  number: number;
  fileName: string;
  mediaType: string;
  width?: number;
  height?: number;
}

const BASE = '/komga/api/v1';
const UA = { 'user-agent': 'TachiyomiKomga/1.4.60' };
const SUPPORTED = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/jxl', 'image/heif', 'image/avif'];

let t: CatalogTestApp;
let libraryId: string;
let reader: { id: string; username: string; password: string; headers: Headers };
let apiKey: string;

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  libraryId = (await scannedLibrary(t, writeKomgaCorpus)).id;
  reader = await createUser(t, 'reader');
  apiKey = (await createApiKey(t, reader.headers, { name: 'Pixel 8 Mihon' })).key;
});
afterAll(() => t.close());

/** The extension's client: a request without credentials, then (after a 401 with a challenge) with Basic. */
async function okhttp<T>(url: string, auth: Headers, method: 'GET' | 'PUT' | 'PATCH' | 'POST' = 'GET', payload?: unknown) {
  const first = await send<T>(t, method, url, UA, payload);
  if (first.status !== 401) return first;
  expect(String(first.headers['www-authenticate'])).toMatch(/^Basic /);
  return send<T>(t, method, url, { ...UA, ...auth }, payload);
}

for (const [label, credentials] of [
  ['Basic username:password', () => basic(reader.username, reader.password)],
  ['Basic api:key', () => basic('api', apiKey)],
  ['X-API-Key', () => ({ 'x-api-key': apiKey })],
] as const) {
  describe(`Mihon's Komga extension, ${label}`, () => {
    let auth: Headers;
    beforeAll(() => {
      auth = credentials();
    });

    it('loads the filter options: libraries, collections, genres, tags, publishers, authors', async () => {
      const libraries = await okhttp<{ id: string; name: string }[]>(`${BASE}/libraries`, auth);
      expect(libraries.status).toBe(200);
      expectKomga(libraries.body, 'array:LibraryDto');
      expect(libraries.body.map((l) => l.id)).toEqual([libraryId]);

      const collections = await okhttp(`${BASE}/collections?unpaged=true`, auth);
      expect(collections.status).toBe(200);
      expectKomga(collections.body, 'PageCollectionDto');

      const genres = await okhttp<string[]>(`${BASE}/genres`, auth);
      expectKomga(genres.body, 'strings');
      expect(genres.body).toEqual(['Action', 'Adventure', 'Humor', 'Martial Arts']);
      expect((await okhttp<string[]>(`${BASE}/tags`, auth)).body).toEqual(['classic', 'dark']);
      expect((await okhttp<string[]>(`${BASE}/publishers`, auth)).body).toEqual(['Dargaud', 'DC Comics', 'Shueisha']);
      const authors = await okhttp<{ name: string; role: string }[]>(`${BASE}/authors`, auth);
      expectKomga(authors.body, 'array:AuthorDto');
      expect(authors.body).toContainEqual({ name: 'René Goscinny', role: 'writer' });
      expect(authors.body).toContainEqual({ name: 'Albert Uderzo', role: 'penciller' });
    });

    it('popular: series sorted by metadata.titleSort, 0-based pages', async () => {
      const first = await okhttp<Page<Series>>(`${BASE}/series?search=&page=0&deleted=false&sort=metadata.titleSort%2Casc&size=2`, auth);
      expect(first.status).toBe(200);
      expectKomga(first.body, 'PageSeriesDto');
      expect(first.body.content.map((s) => s.metadata.title)).toEqual(['Astérix', 'Batman']);
      expect(first.body).toMatchObject({
        number: 0,
        size: 2,
        totalElements: 4,
        totalPages: 2,
        numberOfElements: 2,
        first: true,
        last: false,
        empty: false,
      });
      const second = await okhttp<Page<Series>>(`${BASE}/series?search=&page=1&deleted=false&sort=metadata.titleSort%2Casc&size=2`, auth);
      expectKomga(second.body, 'PageSeriesDto');
      expect(second.body.content.map((s) => s.metadata.title)).toEqual(['Dragon Ball', 'Odd Pages']);
      expect(second.body).toMatchObject({ number: 1, first: false, last: true });
    });

    it('latest: lastModifiedDate descending; search by words', async () => {
      const latest = await okhttp<Page<Series>>(`${BASE}/series?search=&page=0&deleted=false&sort=lastModifiedDate%2Cdesc`, auth);
      expectKomga(latest.body, 'PageSeriesDto');
      expect(latest.body.content).toHaveLength(4);
      const found = await okhttp<Page<Series>>(`${BASE}/series?search=asterix&page=0&deleted=false`, auth);
      expectKomga(found.body, 'PageSeriesDto');
      expect(found.body.content.map((s) => s.name)).toEqual(['Astérix']);
    });

    it('filters: library_id, status, genre and publisher comma lists, repeated read_status', async () => {
      const titles = async (query: string) => {
        const res = await okhttp<Page<Series>>(`${BASE}/series?search=&page=0&deleted=false&sort=metadata.titleSort%2Casc&${query}`, auth);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expectKomga(res.body, 'PageSeriesDto');
        return res.body.content.map((s) => s.name);
      };
      expect(await titles(`library_id=${libraryId}`)).toHaveLength(4);
      expect(await titles('genre=Humor,Martial%20Arts')).toEqual(['Astérix', 'Dragon Ball']);
      expect(await titles('publisher=DC%20Comics')).toEqual(['Batman']);
      expect(await titles('tag=dark')).toEqual(['Batman']);
      expect(await titles('read_status=UNREAD&read_status=IN_PROGRESS')).toHaveLength(4);
    });

    it('series detail and chapter list (unpaged, media_status=READY, deleted=false)', async () => {
      const list = await okhttp<Page<Series>>(`${BASE}/series?search=asterix&page=0&deleted=false`, auth);
      const id = list.body.content[0]!.id;
      const series = await okhttp<Series>(`${BASE}/series/${id}`, auth);
      expect(series.status).toBe(200);
      expectKomga(series.body, 'SeriesDto');
      expect(series.body).toMatchObject({ name: 'Astérix', booksCount: 3 });
      expect(series.body.metadata).toMatchObject({
        title: 'Astérix',
        publisher: 'Dargaud',
        language: 'fr',
        ageRating: 0,
        genres: ['Adventure', 'Humor'],
        tags: ['classic'],
      });
      expect(series.body.booksMetadata.authors).toEqual(
        expect.arrayContaining([
          { name: 'René Goscinny', role: 'writer' },
          { name: 'Albert Uderzo', role: 'penciller' },
        ]),
      );
      expect(series.body.booksMetadata.releaseDate).toBe('1961-01-01');

      const chapters = await okhttp<Page<Book>>(`${BASE}/series/${id}/books?unpaged=true&media_status=READY&deleted=false`, auth);
      expect(chapters.status).toBe(200);
      expectKomga(chapters.body, 'PageBookDto');
      expect(chapters.body.content.map((b) => b.metadata.numberSort)).toEqual([1, 2, 3]);
      expect(chapters.body.content.map((b) => b.number)).toEqual([1, 2, 3]);
      expect(chapters.body).toMatchObject({ totalElements: 3, totalPages: 1, first: true, last: true });
      const book = chapters.body.content[0]!;
      expect(book).toMatchObject({
        seriesId: id,
        seriesTitle: 'Astérix',
        name: 'Astérix 001',
        media: { status: 'READY', mediaProfile: 'DIVINA', pagesCount: 2 },
      });
      expect(book.metadata).toMatchObject({ title: 'Astérix 1', number: '1', releaseDate: '1961-01-01' });
      expect(book.metadata.authors).toContainEqual({ name: 'Anthea Bell', role: 'translator' });
      expect(book.size).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
    });

    it('decimal chapters keep their numberSort; manga reads right to left', async () => {
      const list = await okhttp<Page<Series>>(`${BASE}/series?search=dragon&page=0&deleted=false`, auth);
      const series = list.body.content[0]!;
      expect(series.metadata.readingDirection).toBe('RIGHT_TO_LEFT');
      expect(series.metadata.ageRating).toBe(13);
      const chapters = await okhttp<Page<Book>>(`${BASE}/series/${series.id}/books?unpaged=true&media_status=READY&deleted=false`, auth);
      expectKomga(chapters.body, 'PageBookDto');
      expect(chapters.body.content.map((b) => [b.metadata.number, b.metadata.numberSort, b.number])).toEqual([
        ['1', 1, 1],
        ['2', 2, 2],
        ['2.5', 2.5, 3],
      ]);
    });

    it('page list and page images; unsupported types are fetched with ?convert=png', async () => {
      const list = await okhttp<Page<Series>>(`${BASE}/series?search=odd&page=0&deleted=false`, auth);
      const chapters = await okhttp<Page<Book>>(
        `${BASE}/series/${list.body.content[0]!.id}/books?unpaged=true&media_status=READY&deleted=false`,
        auth,
      );
      const chapterUrl = `${BASE}/books/${chapters.body.content[0]!.id}`;
      const pages = await okhttp<PageDto[]>(`${chapterUrl}/pages`, auth);
      expect(pages.status).toBe(200);
      expectKomga(pages.body, 'array:PageDto');
      expect(pages.body.map((p) => [p.number, p.fileName])).toEqual([
        [1, '001.png'],
        [2, '002.bmp'],
      ]);
      expect(pages.body[0]).toMatchObject({ mediaType: 'image/png', width: 40, height: 60 });
      for (const p of pages.body) {
        const url = `${chapterUrl}/pages/${p.number}${SUPPORTED.includes(p.mediaType) ? '' : '?convert=png'}`;
        const image = await okhttp(url, { ...auth, accept: 'image/*,*/*;q=0.8' });
        expect(image.status, url).toBe(200);
        expect(String(image.headers['content-type'])).toBe('image/png');
        const meta = await sharp(image.raw).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['png', 40, 60]);
      }
      expect(pages.body[1]!.mediaType).not.toBe('image/png');
      const zeroBased = await okhttp(`${chapterUrl}/pages/0?zero_based=true`, auth);
      expect(String(zeroBased.headers['content-type'])).toBe('image/png');
      const jpeg = await okhttp(`${chapterUrl}/pages/1?convert=jpeg`, auth);
      expect(String(jpeg.headers['content-type'])).toBe('image/jpeg');
      const thumb = await okhttp(`${chapterUrl}/pages/1/thumbnail`, auth);
      expect([thumb.status, String(thumb.headers['content-type'])]).toEqual([200, 'image/jpeg']);
      expect((await okhttp(`${chapterUrl}/thumbnail`, auth)).status).toBe(200);
      expect((await okhttp(`${BASE}/series/${list.body.content[0]!.id}/thumbnail`, auth)).status).toBe(200);
    });
  });
}

describe('Mihon marks a chapter read (PATCH read-progress) and the series shows it', () => {
  it('completes the book for the caller only', async () => {
    const auth = basic(reader.username, reader.password);
    const list = await okhttp<Page<Series>>(`${BASE}/series?search=batman&page=0&deleted=false`, auth);
    const seriesId = list.body.content[0]!.id;
    const chapters = await okhttp<Page<Book>>(`${BASE}/series/${seriesId}/books?unpaged=true`, auth);
    const bookId = chapters.body.content[0]!.id;
    expect((await okhttp(`${BASE}/books/${bookId}/read-progress`, auth, 'PATCH', { completed: true })).status).toBe(204);
    const book = await okhttp<Book>(`${BASE}/books/${bookId}`, auth);
    expectKomga(book.body, 'BookDto');
    expect(book.body.readProgress).toMatchObject({ page: 2, completed: true });
    const series = await okhttp<Series>(`${BASE}/series/${seriesId}`, auth);
    expect(series.body).toMatchObject({ booksReadCount: 1, booksUnreadCount: 1, booksInProgressCount: 0 });
    // The admin has read nothing.
    const asAdmin = await send<Series>(t, 'GET', `${BASE}/series/${seriesId}`, t.headers);
    expect(asAdmin.body.booksReadCount).toBe(0);
    const readFilter = await okhttp<Page<Series>>(`${BASE}/series?read_status=IN_PROGRESS&deleted=false`, auth);
    expect(readFilter.body.content.map((s) => s.name)).toEqual(['Batman']);
  });
});

describe('sessions', () => {
  it('a Basic request opens a KOMGA-SESSION that later calls use alone', async () => {
    const res = await send(t, 'GET', `${BASE}/libraries`, { ...UA, ...basic(reader.username, reader.password) });
    const cookie = sessionCookie(res);
    expect(cookie).toBeTruthy();
    expect(String(res.headers['set-cookie'])).toMatch(/HttpOnly/);
    const again = await send<unknown[]>(t, 'GET', `${BASE}/libraries`, { cookie: `KOMGA-SESSION=${cookie}` });
    expect(again.status).toBe(200);
    const header = await send<unknown[]>(t, 'GET', `${BASE}/libraries`, { 'x-auth-token': cookie! });
    expect(header.status).toBe(200);
    const me = await send<{ id: string; email: string; roles: string[] }>(t, 'GET', '/komga/api/v2/users/me', {
      cookie: `KOMGA-SESSION=${cookie}`,
    });
    expectKomga(me.body, 'UserDto');
    expect(me.body).toMatchObject({ id: reader.id, roles: expect.arrayContaining(['PAGE_STREAMING', 'FILE_DOWNLOAD']) as unknown });
    expect(me.body.roles).not.toContain('ADMIN');
  });

  it('a forged or tampered session is refused with a Basic challenge', async () => {
    const res = await send(t, 'GET', `${BASE}/libraries`, basic(reader.username, reader.password));
    const cookie = sessionCookie(res)!;
    const tampered = cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const refused = await send(t, 'GET', `${BASE}/libraries`, { cookie: `KOMGA-SESSION=${tampered}` });
    expect(refused.status).toBe(401);
    expect(String(refused.headers['www-authenticate'])).toMatch(/^Basic /);
  });

  it('the session cookie is not a credential for the native API', async () => {
    const res = await send(t, 'GET', `${BASE}/libraries`, basic(reader.username, reader.password));
    const native = await send(t, 'GET', '/api/v1/libraries', { cookie: `KOMGA-SESSION=${sessionCookie(res)}` });
    expect(native.status).toBe(401);
  });

  it('a session opened with an API key keeps the key limits and ends when the key is revoked', async () => {
    const key = await createApiKey(t, reader.headers, { name: 'limited', permissions: ['libraries-read', 'series-read'] });
    const res = await send(t, 'GET', `${BASE}/libraries`, { 'x-api-key': key.key });
    const cookie = `KOMGA-SESSION=${sessionCookie(res)}`;
    expect((await send(t, 'GET', `${BASE}/libraries`, { cookie })).status).toBe(200);
    const list = await send<Page<Series>>(t, 'GET', `${BASE}/series`, { cookie });
    const bookList = await send(t, 'GET', `${BASE}/series/${list.body.content[0]!.id}/books`, { cookie });
    expect(bookList.status).toBe(403);
    expect((await send(t, 'DELETE', `/api/v1/api-keys/${key.id}`, reader.headers)).status).toBe(204);
    expect((await send(t, 'GET', `${BASE}/libraries`, { cookie })).status).toBe(401);
  });
});
