import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { enableKomga, expectKomga, komgaSchema, send, sessionCookie, writeKomgaCorpus } from './helpers.js';

interface Book {
  id: string;
  seriesId: string;
  number: number;
  metadata: { title: string; number: string; numberSort: number };
  readProgress?: { page: number; completed: boolean };
}
interface Page<T> {
  content: T[];
  totalElements: number;
}
interface Tracker {
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  lastReadContinuousNumberSort: number;
  maxNumberSort: number;
}

const BASE = '/komga/api/v1';

let t: CatalogTestApp;
let reader: Awaited<ReturnType<typeof createUser>>;
let auth: Headers;
const seriesIds: Record<string, string> = {};
const booksOf: Record<string, Book[]> = {};

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  await scannedLibrary(t, writeKomgaCorpus);
  reader = await createUser(t, 'reader');
  auth = basic(reader.username, reader.password);
  const list = await send<Page<{ id: string; name: string }>>(t, 'GET', `${BASE}/series?unpaged=true`, auth);
  for (const s of list.body.content) {
    seriesIds[s.name] = s.id;
    booksOf[s.name] = (await send<Page<Book>>(t, 'GET', `${BASE}/series/${s.id}/books?unpaged=true`, auth)).body.content;
  }
});
afterAll(() => t.close());

const komgaBook = async (id: string, headers = auth) => (await send<Book>(t, 'GET', `${BASE}/books/${id}`, headers)).body;

describe('the schema check itself', () => {
  it('rejects what Mihon could not parse (a null string, a missing field)', () => {
    const validate = komgaSchema('ReadProgressDto');
    expect(
      validate({
        page: 1,
        completed: true,
        readDate: '2024-01-01T00:00:00Z',
        created: '2024-01-01T00:00:00Z',
        lastModified: '2024-01-01T00:00:00Z',
        deviceId: '',
        deviceName: '',
      }),
    ).toBe(true);
    expect(
      validate({
        page: 1,
        completed: true,
        readDate: null,
        created: '2024-01-01T00:00:00Z',
        lastModified: '2024-01-01T00:00:00Z',
        deviceId: '',
        deviceName: '',
      }),
    ).toBe(false);
    expect(validate({ page: 1, completed: true })).toBe(false);
  });
});

describe('Aidoku and Paperback: PATCH books/{id}/read-progress {page, completed}', () => {
  it('page only: the book is in progress at that page; the last page completes it', async () => {
    const book = booksOf['Astérix']![2]!; // 4 pages
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress`, auth, { page: 2 })).status).toBe(204);
    expect((await komgaBook(book.id)).readProgress).toMatchObject({ page: 2, completed: false });
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress/`, auth, { page: 4 })).status).toBe(204);
    expect((await komgaBook(book.id)).readProgress).toMatchObject({ page: 4, completed: true });
  });

  it('page and completed: false restarts the book; DELETE clears it', async () => {
    const book = booksOf['Astérix']![2]!;
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress`, auth, { page: 1, completed: false })).status).toBe(204);
    expect((await komgaBook(book.id)).readProgress).toMatchObject({ page: 1, completed: false });
    expect((await send(t, 'DELETE', `${BASE}/books/${book.id}/read-progress`, auth)).status).toBe(204);
    expect((await komgaBook(book.id)).readProgress).toBeUndefined();
  });

  it('a page outside the book is a 400 in the fields Komga clients send; an unknown book a 404', async () => {
    const book = booksOf['Astérix']![0]!;
    const outside = await send<{ message: string; details: { field: string } }>(
      t,
      'PATCH',
      `${BASE}/books/${book.id}/read-progress`,
      auth,
      {
        page: 99,
      },
    );
    expect(outside.status).toBe(400);
    expect(outside.body.message).toMatch(/^page must be between 1 and \d+/);
    expect(outside.body.details.field).toBe('page');
    expect(
      (await send(t, 'PATCH', `${BASE}/books/00000000-0000-7000-8000-000000000000/read-progress`, auth, { completed: true })).status,
    ).toBe(404);
  });
});

describe('progress written through the Komga API is the progress the native API and OPDS show', () => {
  it('Komga -> native -> OPDS, and native -> Komga', async () => {
    const book = booksOf['Batman']![1]!;
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress`, auth, { page: 1 })).status).toBe(204);
    const native = await send<{ current_page: number; is_completed: boolean }>(
      t,
      'GET',
      `/api/v1/books/${book.id}/progress`,
      reader.headers,
    );
    expect(native.body).toMatchObject({ current_page: 1, is_completed: false });
    const opds = await send<{ locator: { locations: { position: number } } }>(
      t,
      'GET',
      `/opds/v2/books/${book.id}/progression`,
      reader.headers,
    );
    expect(opds.status).toBe(200);
    expect(opds.body.locator.locations.position).toBe(1);

    expect((await send(t, 'PUT', `/api/v1/books/${book.id}/progress`, reader.headers, { current_page: 2 })).status).toBe(200);
    expect((await komgaBook(book.id)).readProgress).toMatchObject({ page: 2, completed: true });
    expect((await send(t, 'POST', `/api/v1/books/${book.id}/unread`, reader.headers)).status).toBe(204);
    expect((await komgaBook(book.id)).readProgress).toBeUndefined();
  });
});

describe("Mihon's Komga tracker: GET/PUT /api/v2/series/{id}/read-progress/tachiyomi with the session cookie only", () => {
  it('reads counts and the continuous read position, and marks read up to a numberSort', async () => {
    // The extension's client logged in with Basic and kept the cookie; the tracker sends nothing else.
    const login = await send(t, 'GET', `${BASE}/libraries`, { ...auth, 'user-agent': 'TachiyomiKomga/1.4.60' });
    const cookie = { cookie: `KOMGA-SESSION=${sessionCookie(login)}`, 'user-agent': 'Mihon v0.17.0 (app.mihon)' };
    const id = seriesIds['Dragon Ball']!;

    const series = await send(t, 'GET', `${BASE}/series/${id}`, cookie);
    expect(series.status).toBe(200);
    expectKomga(series.body, 'SeriesDto');

    const before = await send<Tracker>(t, 'GET', `/komga/api/v2/series/${id}/read-progress/tachiyomi`, cookie);
    expect(before.status).toBe(200);
    expectKomga(before.body, 'TachiyomiReadProgressV2Dto');
    expect(before.body).toEqual({
      booksCount: 3,
      booksReadCount: 0,
      booksUnreadCount: 3,
      booksInProgressCount: 0,
      lastReadContinuousNumberSort: 0,
      maxNumberSort: 2.5,
    });

    const put = await send(t, 'PUT', `/komga/api/v2/series/${id}/read-progress/tachiyomi`, cookie, { lastBookNumberSortRead: 2 });
    expect(put.status).toBe(204);
    const after = await send<Tracker>(t, 'GET', `/komga/api/v2/series/${id}/read-progress/tachiyomi`, cookie);
    expect(after.body).toEqual({
      booksCount: 3,
      booksReadCount: 2,
      booksUnreadCount: 1,
      booksInProgressCount: 0,
      lastReadContinuousNumberSort: 2,
      maxNumberSort: 2.5,
    });
    // The same record the native API shows.
    const native = await send<{ is_completed: boolean }>(
      t,
      'GET',
      `/api/v1/books/${booksOf['Dragon Ball']![1]!.id}/progress`,
      reader.headers,
    );
    expect(native.body.is_completed).toBe(true);

    const v1 = await send<Record<string, number>>(t, 'GET', `${BASE}/series/${id}/read-progress/tachiyomi`, cookie);
    expectKomga(v1.body, 'TachiyomiReadProgressDto');
    expect(v1.body.lastReadContinuousIndex).toBe(2);
  });

  it('without the cookie the tracker gets a 401; a read list id is a 404', async () => {
    const id = seriesIds['Dragon Ball']!;
    expect((await send(t, 'GET', `/komga/api/v2/series/${id}/read-progress/tachiyomi`)).status).toBe(401);
    expect((await send(t, 'GET', `${BASE}/readlists/abc/read-progress/tachiyomi`, auth)).status).toBe(404);
  });
});

describe('series read-progress, On Deck, next and previous', () => {
  it('POST series/{id}/read-progress marks all read, DELETE all unread', async () => {
    const id = seriesIds['Batman']!;
    expect((await send(t, 'POST', `${BASE}/series/${id}/read-progress`, auth)).status).toBe(204);
    expect((await send(t, 'POST', `${BASE}/series/${id}/read-progress`, { ...auth, 'content-type': 'application/json' })).status).toBe(204);
    const read = await send<{ booksReadCount: number }>(t, 'GET', `${BASE}/series/${id}`, auth);
    expect(read.body.booksReadCount).toBe(2);
    expect((await send(t, 'DELETE', `${BASE}/series/${id}/read-progress`, auth)).status).toBe(204);
    expect((await send<{ booksUnreadCount: number }>(t, 'GET', `${BASE}/series/${id}`, auth)).body.booksUnreadCount).toBe(2);
  });

  it('books/ondeck: the next unread book of series the caller started', async () => {
    const [first, second] = booksOf['Astérix']!;
    await send(t, 'PATCH', `${BASE}/books/${first!.id}/read-progress`, auth, { completed: true });
    const deck = await send<Page<Book>>(t, 'GET', `${BASE}/books/ondeck`, auth);
    expect(deck.status).toBe(200);
    expectKomga(deck.body, 'PageBookDto');
    expect(deck.body.content.map((b) => b.id)).toContain(second!.id);
    const other = await send<Page<Book>>(t, 'GET', `${BASE}/books/ondeck?library_id=00000000-0000-7000-8000-000000000000`, auth);
    expectKomga(other.body, 'PageBookDto');
    expect(other.body.content).toEqual([]);
    const libraryId = (await send<{ libraryId: string }>(t, 'GET', `${BASE}/books/${second!.id}`, auth)).body.libraryId;
    const mine = await send<Page<Book>>(t, 'GET', `${BASE}/books/ondeck?library_id=${libraryId}&size=1`, auth);
    expectKomga(mine.body, 'PageBookDto');
    expect(mine.body.totalElements).toBe(deck.body.totalElements);
    expect(mine.body.content).toEqual(deck.body.content.slice(0, 1));
  });

  it('books/{id}/next and previous follow the series order; 404 at the ends', async () => {
    const [a, b, c] = booksOf['Dragon Ball']!;
    const next = await send<Book>(t, 'GET', `${BASE}/books/${a!.id}/next`, auth);
    expectKomga(next.body, 'BookDto');
    expect(next.body.id).toBe(b!.id);
    expect((await send<Book>(t, 'GET', `${BASE}/books/${c!.id}/previous`, auth)).body.id).toBe(b!.id);
    expect((await send(t, 'GET', `${BASE}/books/${c!.id}/next`, auth)).status).toBe(404);
    expect((await send(t, 'GET', `${BASE}/books/${a!.id}/previous`, auth)).status).toBe(404);
  });

  it('next and previous walk every series in the order of its book list', async () => {
    for (const books of Object.values(booksOf)) {
      for (const [i, book] of books.entries()) {
        const next = await send<Book>(t, 'GET', `${BASE}/books/${book.id}/next`, auth);
        if (i + 1 < books.length) expect(next.body.id).toBe(books[i + 1]!.id);
        else expect(next.status).toBe(404);
        const previous = await send<Book>(t, 'GET', `${BASE}/books/${book.id}/previous`, auth);
        if (i > 0) expect(previous.body.id).toBe(books[i - 1]!.id);
        else expect(previous.status).toBe(404);
      }
    }
  });
});

describe('lists and filters', () => {
  it('POST series/list with a Komga condition body', async () => {
    const res = await send<Page<{ name: string }>>(t, 'POST', `${BASE}/series/list?sort=metadata.titleSort,desc`, auth, {
      condition: {
        allOf: [
          { genre: { operator: 'is', value: 'Action' } },
          { deleted: { operator: 'isFalse' } },
          { anyOf: [{ title: { operator: 'beginsWith', value: 'dragon' } }, { publisher: { operator: 'is', value: 'DC Comics' } }] },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectKomga(res.body, 'PageSeriesDto');
    expect(res.body.content.map((s) => s.name)).toEqual(['Dragon Ball', 'Batman']);
    const unsupported = await send(t, 'POST', `${BASE}/series/list`, auth, {
      condition: { releaseDate: { operator: 'after', dateTime: '2020-01-01T00:00:00Z' } },
    });
    expect(unsupported.status).toBe(400);
  });

  it('POST books/list with a Komga condition body and full-text search', async () => {
    const res = await send<Page<Book>>(t, 'POST', `${BASE}/books/list?sort=metadata.numberSort,asc&unpaged=true`, auth, {
      condition: {
        allOf: [{ seriesId: { operator: 'is', value: seriesIds['Dragon Ball'] } }, { mediaStatus: { operator: 'is', value: 'READY' } }],
      },
    });
    expectKomga(res.body, 'PageBookDto');
    expect(res.body.content.map((b) => b.metadata.number)).toEqual(['1', '2', '2.5']);
    const search = await send<Page<Book>>(t, 'POST', `${BASE}/books/list`, auth, { fullTextSearch: 'batman' });
    expect(search.body.content.every((b) => b.seriesId === seriesIds['Batman'])).toBe(true);
    expect(search.body.totalElements).toBe(2);
  });

  it('GET books with search, library and read filters; series/new and series/updated', async () => {
    const books = await send<Page<Book>>(t, 'GET', `${BASE}/books?search=asterix&sort=metadata.numberSort,desc&size=2`, auth);
    expectKomga(books.body, 'PageBookDto');
    expect(books.body.content.map((b) => b.metadata.number)).toEqual(['3', '2']);
    expect(books.body.totalElements).toBe(3);
    for (const url of [
      `${BASE}/series/new`,
      `${BASE}/series/updated`,
      `${BASE}/series/latest?library_id=${(await send<{ id: string }[]>(t, 'GET', `${BASE}/libraries`, auth)).body[0]!.id}`,
    ]) {
      const res = await send<Page<unknown>>(t, 'GET', url, auth);
      expect(res.status, url).toBe(200);
      expectKomga(res.body, 'PageSeriesDto');
      expect(res.body.totalElements).toBe(4);
    }
  });

  it('languages, age ratings, release dates; collections and read lists are empty pages', async () => {
    const get = async (url: string) => (await send<string[]>(t, 'GET', `${BASE}/${url}`, auth)).body;
    expect(await get('languages')).toEqual(['en', 'fr', 'ja']);
    expect(await get('age-ratings')).toEqual(['0', '13', 'None']);
    const years = await get('series/release-dates');
    expectKomga(years, 'strings');
    expect(years).toContain('1961');
    for (const kind of ['collections', 'readlists']) {
      const page = await send(t, 'GET', `${BASE}/${kind}?unpaged=true`, auth);
      expectKomga(page.body, kind === 'collections' ? 'PageCollectionDto' : 'PageReadListDto');
      expect(page.body).toMatchObject({ content: [], empty: true, totalElements: 0 });
    }
  });

  it('the book file downloads with its name', async () => {
    const book = booksOf['Batman']![0]!;
    const res = await send(t, 'GET', `${BASE}/books/${book.id}/file`, auth);
    expect(res.status).toBe(200);
    expect(String(res.headers['content-disposition'])).toContain('Batman 001.cbz');
    expect(res.raw.subarray(0, 2).toString()).toBe('PK');
  });
});

describe('same permissions as the native API', () => {
  it('a key without pages-read gets 403 on pages; without progress-write 403 on read-progress', async () => {
    const key = await createApiKey(t, reader.headers, {
      name: 'browse only',
      permissions: ['libraries-read', 'series-read', 'books-read'],
    });
    const headers = basic('api', key.key);
    const book = booksOf['Batman']![0]!;
    expect((await send(t, 'GET', `${BASE}/books/${book.id}`, headers)).status).toBe(200);
    expect((await send(t, 'GET', `${BASE}/books/${book.id}/pages`, headers)).status).toBe(403);
    expect((await send(t, 'GET', `${BASE}/books/${book.id}/pages/1`, headers)).status).toBe(403);
    // The file holds every page: downloading it needs pages-read too, here as on the native API and OPDS.
    for (const url of [`${BASE}/books/${book.id}/file`, `/api/v1/books/${book.id}/file`, `/opds/v1.2/books/${book.id}/file`]) {
      const download = await send(t, 'GET', url, headers);
      expect(download.status, url).toBe(403);
      expect(download.body, url).toMatchObject({ error: 'Forbidden', details: { required_permission: 'pages-read' } });
    }
    const withPages = basic(
      'api',
      (await createApiKey(t, reader.headers, { name: 'download', permissions: ['books-read', 'pages-read'] })).key,
    );
    expect((await send(t, 'GET', `/api/v1/books/${book.id}/file`, withPages)).status).toBe(200);
    expect((await send(t, 'PATCH', `${BASE}/books/${book.id}/read-progress`, headers, { completed: true })).status).toBe(403);
    expect(
      (await send(t, 'PUT', `/komga/api/v2/series/${book.seriesId}/read-progress/tachiyomi`, headers, { lastBookNumberSortRead: 1 }))
        .status,
    ).toBe(403);
  });
});
