import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, basic, createUser, type Headers } from '../helpers/auth.js';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { enableKomga, expectKomga, send, writeKomgaCorpus } from './helpers.js';

/**
 * Collections, read lists and the read-list tracker through the Komga API, as Mihon's Komga extension and its
 * tracker call them; every JSON answer is checked against Komga's own schemas. A restricted user sees none of
 * the hidden series or books inside the lists.
 */

interface Collection {
  id: string;
  name: string;
  seriesIds: string[];
  ordered: boolean;
  filtered: boolean;
}
interface ReadList {
  id: string;
  name: string;
  bookIds: string[];
  filtered: boolean;
}
interface Page<T> {
  content: T[];
  totalElements: number;
}
interface Progress {
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  lastReadContinuousIndex: number;
}

const BASE = '/komga/api/v1';
let t: CatalogTestApp;
let libraryId: string;
const series: Record<string, string> = {};
const books: Record<string, string> = {};
let collection: Collection;
let readList: ReadList;
let reader: Headers;
let teen: Headers;

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  libraryId = (await scannedLibrary(t, writeKomgaCorpus)).id;
  for (const s of (await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=50')).body.data) series[s.name] = s.id;
  for (const b of (await api<Paged<{ id: string; title: string }>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data) books[b.title] = b.id;
  const c = await api<{ id: string }>(t, 'POST', '/api/v1/collections', {
    name: 'Heroes',
    ordered: true,
    shared: true,
    series_ids: [series['Dragon Ball'], series.Batman, series['Astérix']],
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const l = await api<{ id: string }>(t, 'POST', '/api/v1/read-lists', {
    name: 'Crossover',
    shared: true,
    book_ids: [books['Batman 2'], books['Dragon Ball 1'], books['Astérix 1'], books['Batman 1']],
  });
  expect(l.status, JSON.stringify(l.body)).toBe(201);
  const r = await createUser(t, 'reader');
  reader = basic(r.username, r.password);
  // Dragon Ball is rated Teen (13): hidden from a user limited to 10.
  const restricted = await createUser(t, 'reader');
  const patched = await api(t, 'PATCH', `/api/v1/users/${restricted.id}`, { age_restriction: { max_age: 10, include_unrated: true } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  teen = basic(restricted.username, restricted.password);
  collection = (await send<Collection>(t, 'GET', `${BASE}/collections/${c.body.id}`, reader)).body;
  readList = (await send<ReadList>(t, 'GET', `${BASE}/readlists/${l.body.id}`, reader)).body;
});
afterAll(() => t.close());

describe('Komga collections (Mihon)', () => {
  it('lists collections (unpaged, paged, search, library_id) and shows one', async () => {
    expectKomga(collection, 'CollectionDto');
    expect(collection).toMatchObject({ name: 'Heroes', ordered: true, filtered: false });
    expect(collection.seriesIds).toEqual([series['Dragon Ball'], series.Batman, series['Astérix']]);
    for (const q of ['unpaged=true', 'page=0&size=10', 'search=her', `library_id=${libraryId}`]) {
      const res = await send<Page<Collection>>(t, 'GET', `${BASE}/collections?${q}`, reader);
      expect(res.status, q).toBe(200);
      expectKomga(res.body, 'PageCollectionDto');
      expect(
        res.body.content.map((c) => c.name),
        q,
      ).toEqual(['Heroes']);
    }
    const none = await send<Page<Collection>>(t, 'GET', `${BASE}/collections?search=zzz`, reader);
    expect(none.body.totalElements).toBe(0);
    const ofSeries = await send<Collection[]>(t, 'GET', `${BASE}/series/${series.Batman}/collections`, reader);
    expectKomga(ofSeries.body, 'array:CollectionDto');
    expect(ofSeries.body.map((c) => c.id)).toEqual([collection.id]);
    expect((await send(t, 'GET', `${BASE}/collections/00000000-0000-4000-8000-000000000000`, reader)).status).toBe(404);
  });

  it("serves the collection's series in its order, filtered; and the collection_id series filter", async () => {
    const all = await send<Page<{ name: string }>>(
      t,
      'GET',
      `${BASE}/collections/${collection.id}/series?unpaged=true&deleted=false`,
      reader,
    );
    expectKomga(all.body, 'PageSeriesDto');
    expect(all.body.content.map((s) => s.name)).toEqual(['Dragon Ball', 'Batman', 'Astérix']);
    const action = await send<Page<{ name: string }>>(t, 'GET', `${BASE}/collections/${collection.id}/series?genre=Action`, reader);
    expect(action.body.content.map((s) => s.name)).toEqual(['Dragon Ball', 'Batman']);
    const filtered = await send<Page<{ name: string }>>(
      t,
      'GET',
      `${BASE}/series?collection_id=${collection.id}&deleted=false&page=0&sort=metadata.titleSort,asc`,
      reader,
    );
    expectKomga(filtered.body, 'PageSeriesDto');
    expect(filtered.body.content.map((s) => s.name)).toEqual(['Astérix', 'Batman', 'Dragon Ball']);
    const thumb = await send(t, 'GET', `${BASE}/collections/${collection.id}/thumbnail`, reader);
    expect(thumb.status).toBe(200);
    expect(String(thumb.headers['content-type'])).toMatch(/^image\//);
  });
});

describe('Komga conditions and facets by collection and read list', () => {
  const names = (r: { body: Page<{ name: string }> }) => r.body.content.map((s) => s.name);
  const seriesList = (headers: Headers, condition: unknown) =>
    send<Page<{ name: string }>>(t, 'POST', `${BASE}/series/list?unpaged=true&sort=metadata.titleSort,asc`, headers, { condition });
  const inCollection = (id: string) => ({ collectionId: { operator: 'is', value: id } });

  it('collectionId and readListId match the series and books inside, as the caller sees them', async () => {
    const all = await seriesList(reader, inCollection(collection.id));
    expectKomga(all.body, 'PageSeriesDto');
    expect(names(all)).toEqual(['Astérix', 'Batman', 'Dragon Ball']);
    expect(names(await seriesList(teen, inCollection(collection.id)))).toEqual(['Astérix', 'Batman']);
    expect(names(await seriesList(reader, { collectionId: { operator: 'isNot', value: collection.id } }))).toEqual(['Odd Pages']);
    const action = await seriesList(reader, { allOf: [inCollection(collection.id), { genre: { operator: 'is', value: 'Action' } }] });
    expect(names(action)).toEqual(['Batman', 'Dragon Ball']);
    expect(names(await seriesList(reader, inCollection('not-an-id')))).toEqual([]);

    const bookList = (headers: Headers) =>
      send<Page<{ id: string }>>(t, 'POST', `${BASE}/books/list?unpaged=true`, headers, {
        condition: { readListId: { operator: 'is', value: readList.id } },
      });
    const listed = await bookList(reader);
    expectKomga(listed.body, 'PageBookDto');
    expect(listed.body.content.map((b) => b.id).sort()).toEqual([...readList.bookIds].sort());
    expect((await bookList(teen)).body.content.map((b) => b.id).sort()).toEqual(
      [books['Batman 2'], books['Astérix 1'], books['Batman 1']].sort(),
    );

    // Another user's private collection: no match, no facets.
    const mine = await api<{ id: string }>(t, 'POST', '/api/v1/collections', { name: 'Admin only', series_ids: [series.Batman] });
    expect(mine.status).toBe(201);
    expect(names(await seriesList(basic(ADMIN.username, ADMIN.password), inCollection(mine.body.id)))).toEqual(['Batman']);
    expect(names(await seriesList(reader, inCollection(mine.body.id)))).toEqual([]);
    expect((await send(t, 'GET', `${BASE}/genres?collection_id=${mine.body.id}`, reader)).body).toEqual([]);
  });

  it("collection_id facets answer the facets of the collection's series the caller sees", async () => {
    const facet = async (url: string, headers: Headers) => (await send<string[]>(t, 'GET', `${BASE}/${url}`, headers)).body;
    expect(await facet(`genres?collection_id=${collection.id}`, reader)).toEqual(['Action', 'Adventure', 'Humor', 'Martial Arts']);
    expect(await facet(`genres?collection_id=${collection.id}`, teen)).toEqual(['Action', 'Adventure', 'Humor']);
    expect(await facet(`publishers?collection_id=${collection.id}`, teen)).toEqual(['Dargaud', 'DC Comics']);
    expect(await facet(`languages?collection_id=${collection.id}`, reader)).toEqual(['en', 'fr', 'ja']);
    expect(await facet(`series/release-dates?collection_id=${collection.id}`, teen)).toEqual(expect.arrayContaining(['1940', '1961']));
    const authors = (await send<{ name: string }[]>(t, 'GET', `${BASE}/authors?collection_id=${collection.id}`, teen)).body;
    expect(authors.map((a) => a.name)).toContain('Bob Kane');
    expect(authors.map((a) => a.name)).not.toContain('Akira Toriyama');
    const oneSeries = await send<{ name: string }[]>(
      t,
      'GET',
      `${BASE}/authors?collection_id=${collection.id}&series_id=${series['Dragon Ball']}`,
      teen,
    );
    expect(oneSeries.body).toEqual([]);
  });
});

describe('Komga read lists (Mihon)', () => {
  it('lists read lists and shows one with its books in list order', async () => {
    expectKomga(readList, 'ReadListDto');
    expect(readList.bookIds).toEqual([books['Batman 2'], books['Dragon Ball 1'], books['Astérix 1'], books['Batman 1']]);
    for (const q of ['search=&page=0', 'unpaged=true', `library_id=${libraryId}`]) {
      const res = await send<Page<ReadList>>(t, 'GET', `${BASE}/readlists?${q}`, reader);
      expect(res.status, q).toBe(200);
      expectKomga(res.body, 'PageReadListDto');
      expect(
        res.body.content.map((l) => l.name),
        q,
      ).toEqual(['Crossover']);
    }
    const list = await send<Page<{ id: string; name: string }>>(
      t,
      'GET',
      `${BASE}/readlists/${readList.id}/books?unpaged=true&media_status=READY&deleted=false`,
      reader,
    );
    expectKomga(list.body, 'PageBookDto');
    expect(list.body.content.map((b) => b.id)).toEqual(readList.bookIds);
    const ofBook = await send<ReadList[]>(t, 'GET', `${BASE}/books/${books['Astérix 1']}/readlists`, reader);
    expectKomga(ofBook.body, 'array:ReadListDto');
    expect(ofBook.body.map((l) => l.id)).toEqual([readList.id]);

    const next = await send<{ id: string }>(t, 'GET', `${BASE}/readlists/${readList.id}/books/${books['Dragon Ball 1']}/next`, reader);
    expectKomga(next.body, 'BookDto');
    expect(next.body.id).toBe(books['Astérix 1']);
    const previous = await send<{ id: string }>(
      t,
      'GET',
      `${BASE}/readlists/${readList.id}/books/${books['Dragon Ball 1']}/previous`,
      reader,
    );
    expect(previous.body.id).toBe(books['Batman 2']);
    expect((await send(t, 'GET', `${BASE}/readlists/${readList.id}/books/${books['Batman 2']}/previous`, reader)).status).toBe(404);
    const thumb = await send(t, 'GET', `${BASE}/readlists/${readList.id}/thumbnail`, reader);
    expect(thumb.status).toBe(200);
  });

  it("Mihon's tracker reads and marks progress by position in the list", async () => {
    const url = `${BASE}/readlists/${readList.id}/read-progress/tachiyomi`;
    const before = await send<Progress>(t, 'GET', url, reader);
    expectKomga(before.body, 'TachiyomiReadProgressDto');
    expect(before.body).toEqual({
      booksCount: 4,
      booksReadCount: 0,
      booksUnreadCount: 4,
      booksInProgressCount: 0,
      lastReadContinuousIndex: 0,
    });
    expect((await send(t, 'PUT', url, { ...reader, 'content-type': 'application/json' }, { lastBookRead: 2 })).status).toBe(204);
    const after = await send<Progress>(t, 'GET', url, reader);
    expect(after.body).toMatchObject({ booksReadCount: 2, booksUnreadCount: 2, lastReadContinuousIndex: 2 });
    const read = await send<{ readProgress?: { completed: boolean } }>(t, 'GET', `${BASE}/books/${books['Dragon Ball 1']}`, reader);
    expect(read.body.readProgress?.completed).toBe(true);
    expect(
      (await send<{ readProgress?: unknown }>(t, 'GET', `${BASE}/books/${books['Astérix 1']}`, reader)).body.readProgress,
    ).toBeUndefined();
    const v2 = await send(t, 'GET', url.replace('/api/v1/', '/api/v2/'), reader);
    expectKomga(v2.body, 'TachiyomiReadProgressV2Dto');
    expect(v2.body).toMatchObject({ lastReadContinuousNumberSort: 2, maxNumberSort: 4 });
  });
});

describe('A restricted user inside Komga collections and read lists', () => {
  it('sees no hidden series or book in them', async () => {
    const c = await send<Collection>(t, 'GET', `${BASE}/collections/${collection.id}`, teen);
    expectKomga(c.body, 'CollectionDto');
    expect(c.body.seriesIds).toEqual([series.Batman, series['Astérix']]);
    expect(c.body.filtered).toBe(true);
    const inside = await send<Page<{ name: string }>>(t, 'GET', `${BASE}/collections/${collection.id}/series?unpaged=true`, teen);
    expect(inside.body.content.map((s) => s.name)).toEqual(['Batman', 'Astérix']);
    const filter = await send<Page<{ name: string }>>(t, 'GET', `${BASE}/series?collection_id=${collection.id}`, teen);
    expect(filter.body.content.map((s) => s.name).sort()).toEqual(['Astérix', 'Batman']);
    expect((await send(t, 'GET', `${BASE}/series/${series['Dragon Ball']}/collections`, teen)).status).toBe(404);

    const l = await send<ReadList>(t, 'GET', `${BASE}/readlists/${readList.id}`, teen);
    expect(l.body.bookIds).toEqual([books['Batman 2'], books['Astérix 1'], books['Batman 1']]);
    const listed = await send<Page<{ id: string }>>(
      t,
      'GET',
      `${BASE}/readlists/${readList.id}/books?unpaged=true&media_status=READY&deleted=false`,
      teen,
    );
    expect(listed.body.content.map((b) => b.id)).toEqual(l.body.bookIds);
    const next = await send<{ id: string }>(t, 'GET', `${BASE}/readlists/${readList.id}/books/${books['Batman 2']}/next`, teen);
    expect(next.body.id).toBe(books['Astérix 1']);
    expect((await send(t, 'GET', `${BASE}/readlists/${readList.id}/books/${books['Dragon Ball 1']}/next`, teen)).status).toBe(404);
    expect((await send(t, 'GET', `${BASE}/books/${books['Dragon Ball 1']}/readlists`, teen)).status).toBe(404);
    const progress = await send<Progress>(t, 'GET', `${BASE}/readlists/${readList.id}/read-progress/tachiyomi`, teen);
    expect(progress.body.booksCount).toBe(3);
  });
});
