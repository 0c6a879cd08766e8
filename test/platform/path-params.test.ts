import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

/**
 * UUIDs are case-insensitive (RFC 9562) and clients write them either way (Swift's `uuidString` is upper
 * case): an id in upper case names the same resource, in paths, queries and filter conditions.
 */
let t: CatalogTestApp;
let ids: { library: string; series: string; book: string };
beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true } });
  const dir = libraryDir();
  await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 2 });
  const library = await createLibrary(t, dir);
  await scan(t, library.id);
  const book = await t.database.db.selectFrom('books').select(['id', 'series_id']).executeTakeFirstOrThrow();
  ids = { library: library.id, series: book.series_id, book: book.id };
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.headers });

describe('ids in upper case', () => {
  it('name the same book, series and library in paths and queries', async () => {
    const upper = { library: ids.library.toUpperCase(), series: ids.series.toUpperCase(), book: ids.book.toUpperCase() };
    expect(upper.book).not.toBe(ids.book);
    for (const [url, id] of [
      [`/api/v1/books/${upper.book}`, ids.book],
      [`/api/v1/series/${upper.series}`, ids.series],
      [`/api/v1/libraries/${upper.library}`, ids.library],
      [`/komga/api/v1/books/${upper.book}`, ids.book],
      [`/komga/api/v1/libraries/${upper.library}`, ids.library],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      expect(res.json<{ id: string }>().id).toBe(id);
    }
    expect((await get(`/api/v1/books/${upper.book}/pages/1`)).statusCode).toBe(200);
    const listed = await get(`/api/v1/series?library_id=${upper.library}`);
    expect(listed.json<{ data: { id: string }[] }>().data.map((s) => s.id)).toEqual([ids.series]);
  });

  it('match in filter conditions, and an id that is not a UUID is a 400 naming the value', async () => {
    const filter = (condition: unknown) =>
      t.app.inject({ method: 'POST', url: '/api/v1/books/list', headers: t.headers, payload: { condition } });
    const found = await filter({ libraryId: { operator: 'is', value: ids.library.toUpperCase() } });
    expect(found.json<{ data: { id: string }[] }>().data.map((b) => b.id)).toEqual([ids.book]);
    const bad = await filter({ seriesId: { operator: 'is', value: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'BadRequest', message: 'condition.seriesId.value must be a UUID' });
  });
});

describe('page numbers in paths', () => {
  it('are decimal digits: 0x1, 1e3, a blank or a plus sign is a 400, not another page', async () => {
    for (const base of [`/api/v1/books/${ids.book}/pages`, `/komga/api/v1/books/${ids.book}/pages`, `/opds/v2/books/${ids.book}/pages`]) {
      for (const n of ['0x1', '1e3', '%20', '+1', '1.0', '--1']) {
        const res = await get(`${base}/${n}`);
        expect(res.statusCode, `${base}/${n}: ${res.body}`).toBe(400);
        expect(res.json(), `${base}/${n}`).toMatchObject({ error: 'BadRequest' });
      }
    }
    expect((await get(`/api/v1/books/${ids.book}/pages/1`)).statusCode).toBe(200);
    expect((await get(`/api/v1/books/${ids.book}/pages/01`)).statusCode).toBe(200);
  });
});
