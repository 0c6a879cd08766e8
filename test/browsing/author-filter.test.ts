import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAuthorCorpus, writeOtherLibrary } from './author-corpus.js';
import { api, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';

/**
 * The `author` filter field (an extension beyond the spec's list: books.authors is a list of {name, role}; a series
 * matches through its present books), and `ageRating` / `releaseYear`, on a real scanned library.
 */
interface Series {
  id: string;
  name: string;
}
interface Book {
  id: string;
  title: string;
}

let t: CatalogTestApp;
let lib: { id: string; dir: string };

const seriesWhere = async (condition: unknown): Promise<string[]> => {
  const res = await api<Paged<Series>>(t, 'POST', '/api/v1/series/list?pageSize=100', { condition });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((s) => s.name).sort();
};
const booksWhere = async (condition: unknown): Promise<string[]> => {
  const res = await api<Paged<Book>>(t, 'POST', '/api/v1/books/list?pageSize=100', { condition });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((b) => b.title).sort();
};
const refused = async (resource: 'series' | 'books', condition: unknown) => {
  const res = await api<{ error: string; message: string }>(t, 'POST', `/api/v1/${resource}/list`, { condition });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.message;
};

beforeAll(async () => {
  t = await createCatalogApp();
  lib = await scannedLibrary(t, writeAuthorCorpus);
  await scannedLibrary(t, writeOtherLibrary);
});
afterAll(() => t.close());

describe('books: author filter on books.authors ({name, role})', () => {
  it('is: case-insensitive name, any role; a string value is the name', async () => {
    expect(await booksWhere({ author: { operator: 'is', value: { name: 'albert UDERZO' } } })).toEqual(['Astérix 1', 'Astérix 2']);
    expect(await booksWhere({ author: { operator: 'is', value: 'René Goscinny' } })).toEqual(['Astérix 1']);
  });

  it('is with a role: the same author must have that role', async () => {
    expect(await booksWhere({ author: { operator: 'is', value: { name: 'Albert Uderzo', role: 'writer' } } })).toEqual(['Astérix 2']);
    expect(await booksWhere({ author: { operator: 'is', value: { name: 'Bill Finger', role: 'writer' } } })).toEqual([]);
    expect(await booksWhere({ author: { operator: 'is', value: { role: 'PENCILLER' } } })).toEqual([
      'Astérix 1',
      'Astérix 2',
      'Batman 1',
      'Batman 2',
      'Dragon Ball 1',
    ]);
  });

  it('isNot: no author of the book matches (books without authors included)', async () => {
    expect(await booksWhere({ author: { operator: 'isNot', value: { name: 'Albert Uderzo' } } })).toEqual([
      'Batman 1',
      'Batman 2',
      'Dragon Ball 1',
      'Zorro 1',
      'Éclair 001',
    ]);
    expect(await booksWhere({ author: { operator: 'isNot', value: { name: 'Albert Uderzo', role: 'writer' } } })).toEqual([
      'Astérix 1',
      'Batman 1',
      'Batman 2',
      'Dragon Ball 1',
      'Zorro 1',
      'Éclair 001',
    ]);
  });

  it('contains and beginsWith on the name; LIKE wildcards are plain text', async () => {
    expect(await booksWhere({ author: { operator: 'contains', value: 'RANK' } })).toEqual(['Batman 2']);
    expect(await booksWhere({ author: { operator: 'beginsWith', value: { name: 'akira', role: 'penciller' } } })).toEqual([
      'Dragon Ball 1',
    ]);
    expect(await booksWhere({ author: { operator: 'beginsWith', value: 'Uderzo' } })).toEqual([]);
    expect(await booksWhere({ author: { operator: 'contains', value: '%' } })).toEqual([]);
    expect(await booksWhere({ author: { operator: 'contains', value: '_' } })).toEqual([]);
  });

  it('combines with other fields in allOf/anyOf', async () => {
    expect(
      await booksWhere({
        allOf: [{ author: { operator: 'is', value: 'Albert Uderzo' } }, { title: { operator: 'contains', value: '2' } }],
      }),
    ).toEqual(['Astérix 2']);
    expect(
      await booksWhere({
        anyOf: [{ author: { operator: 'is', value: 'Bob Kane' } }, { author: { operator: 'is', value: 'Johnston McCulley' } }],
      }),
    ).toEqual(['Batman 1', 'Zorro 1']);
  });

  it('releaseYear on books.year', async () => {
    expect(await booksWhere({ releaseYear: { operator: 'is', value: 1984 } })).toEqual(['Dragon Ball 1']);
    expect(await booksWhere({ releaseYear: { operator: 'is', value: '1940' } })).toEqual(['Batman 1', 'Batman 2']);
    expect(await booksWhere({ releaseYear: { operator: 'isNull' } })).toEqual(['Éclair 001']);
  });

  it('refuses what does not apply, naming it', async () => {
    expect(await refused('books', { author: { operator: 'isNull' } })).toMatch(/Operator "isNull" does not apply to filter field "author"/);
    expect(await refused('books', { author: { operator: 'contains', value: { role: 'writer' } } })).toMatch(/needs an author name/);
    expect(await refused('books', { author: { operator: 'is', value: {} } })).toMatch(/needs an author name or a role/);
    expect(await refused('books', { author: { operator: 'is', value: { name: 'x', age: 3 } } })).toMatch(/unknown keys age/);
    expect(await refused('books', { author: { operator: 'is', value: 12 } })).toMatch(/must be a string/);
    expect(await refused('books', { releaseYear: { operator: 'contains', value: '19' } })).toMatch(
      /does not apply to filter field "releaseYear"/,
    );
    expect(await refused('books', { releaseYear: { operator: 'is', value: 'soon' } })).toMatch(/must be a year/);
    expect(await refused('books', { ageRating: { operator: 'is', value: 'Teen' } })).toMatch(/Unknown filter field "ageRating"/);
  });
});

describe('series: author matches when one of its present books matches', () => {
  it('is / isNot / contains / beginsWith, with and without a role', async () => {
    expect(await seriesWhere({ author: { operator: 'is', value: { name: 'Albert Uderzo', role: 'writer' } } })).toEqual(['Astérix']);
    expect(await seriesWhere({ author: { operator: 'is', value: { name: 'Bob Kane', role: 'penciller' } } })).toEqual([]);
    expect(await seriesWhere({ author: { operator: 'isNot', value: 'Frank Miller' } })).toEqual([
      'Astérix',
      'Dragon Ball',
      'Zorro',
      'Éclair',
    ]);
    expect(await seriesWhere({ author: { operator: 'contains', value: 'tori' } })).toEqual(['Dragon Ball']);
    expect(await seriesWhere({ author: { operator: 'beginsWith', value: 'b' } })).toEqual(['Batman']);
  });

  it('ageRating (text) and releaseYear (year) fields', async () => {
    expect(await seriesWhere({ ageRating: { operator: 'is', value: 'teen' } })).toEqual(['Batman', 'Zorro']);
    expect(await seriesWhere({ ageRating: { operator: 'isNull' } })).toEqual(['Éclair']);
    expect(await seriesWhere({ ageRating: { operator: 'beginsWith', value: 'ev' } })).toEqual(['Astérix']);
    expect(await seriesWhere({ releaseYear: { operator: 'is', value: 1940 } })).toEqual(['Batman']);
    expect(await seriesWhere({ releaseYear: { operator: 'isNot', value: 1940 } })).toEqual(['Astérix', 'Dragon Ball', 'Zorro', 'Éclair']);
    expect(await seriesWhere({ releaseYear: { operator: 'isNotNull' } })).toEqual(['Astérix', 'Batman', 'Dragon Ball', 'Zorro']);
    expect(
      await seriesWhere({
        allOf: [{ ageRating: { operator: 'is', value: 'Teen' } }, { author: { operator: 'contains', value: 'miller' } }],
      }),
    ).toEqual(['Batman']);
  });

  it('unknown operators on the new fields are a 400 naming them', async () => {
    expect(await refused('series', { author: { operator: 'isNotNull' } })).toMatch(/"author"/);
    expect(await refused('series', { releaseYear: { operator: 'beginsWith', value: '19' } })).toMatch(/"releaseYear"/);
    expect(await refused('series', { ageRating: { operator: 'greaterThan', value: 'Teen' } })).toMatch(
      /Unknown operator "greaterThan" for filter field "ageRating"/,
    );
  });

  it('the OpenAPI description of both list bodies documents the extension fields', async () => {
    await t.app.ready();
    const doc = JSON.stringify((t.app as unknown as { swagger(): unknown }).swagger());
    for (const text of [
      '`author` (an extension beyond the spec',
      '`ageRating` (is, isNot',
      '`releaseYear` (is, isNot, isNull, isNotNull)',
      'A series matches when one of its present books does',
    ]) {
      expect(doc).toContain(text);
    }
  });
});

describe('present books only: a deleted book no longer makes its series match', () => {
  it('after the file is removed and the library rescanned', async () => {
    expect(await seriesWhere({ author: { operator: 'is', value: 'Frank Miller' } })).toEqual(['Batman']);
    await rm(path.join(lib.dir, 'Batman', 'Batman 002.cbz'));
    await scan(t, lib.id);
    expect(await seriesWhere({ author: { operator: 'is', value: 'Frank Miller' } })).toEqual([]);
    expect(await booksWhere({ author: { operator: 'is', value: 'Frank Miller' } })).toEqual([]);
    expect(await seriesWhere({ author: { operator: 'is', value: 'Bob Kane' } })).toEqual(['Batman']);
  });
});
