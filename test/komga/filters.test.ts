import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scan, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { writeAuthorCorpus, writeOtherLibrary } from '../browsing/author-corpus.js';
import { enableKomga, expectKomga, send } from './helpers.js';

/**
 * Komga's `author=name,role`, `age_rating` and `release_year` filters (query and condition body) over the native
 * filter fields, filters that are refused rather than ignored, and the facet lists computed by the services'
 * DISTINCT queries. Library: Astérix (Goscinny/Uderzo, Everyone, 1961), Batman (Kane/Finger, Miller; Teen, 1940),
 * Dragon Ball (Toriyama, M, 1984), Éclair (no ComicInfo); other library: Zorro (McCulley, Teen, 1919).
 */
interface Page<T> {
  content: T[];
  totalElements: number;
}
interface Series {
  id: string;
  name: string;
}
interface Book {
  id: string;
  name: string;
  metadata: { title: string };
}

const BASE = '/komga/api/v1';
let t: CatalogTestApp;
let auth: Headers;
let lib: { id: string; dir: string };
let other: { id: string; dir: string };

const seriesNames = async (query: string): Promise<string[]> => {
  const res = await send<Page<Series>>(t, 'GET', `${BASE}/series?unpaged=true&${query}`, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectKomga(res.body, 'PageSeriesDto');
  return res.body.content.map((s) => s.name).sort();
};
const seriesByBody = async (condition: unknown): Promise<string[]> => {
  const res = await send<Page<Series>>(t, 'POST', `${BASE}/series/list?unpaged=true`, auth, { condition });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectKomga(res.body, 'PageSeriesDto');
  return res.body.content.map((s) => s.name).sort();
};
const bookTitles = async (url: string, body?: unknown): Promise<string[]> => {
  const res = await send<Page<Book>>(t, body === undefined ? 'GET' : 'POST', url, auth, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectKomga(res.body, 'PageBookDto');
  return res.body.content.map((b) => b.metadata.title).sort();
};
const status400 = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<string> => {
  const res = await send<{ message: string }>(t, method, url, auth, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return res.body.message;
};
const strings = async (url: string): Promise<string[]> => {
  const res = await send<string[]>(t, 'GET', url, auth);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectKomga(res.body, 'strings');
  return res.body;
};

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  lib = await scannedLibrary(t, writeAuthorCorpus);
  other = await scannedLibrary(t, writeOtherLibrary);
  const reader = await createUser(t, 'reader');
  auth = basic(reader.username, reader.password);
});
afterAll(() => t.close());

describe('author=name,role (repeatable) on GET series and GET books', () => {
  it('a series matches when one of its books has the author in that role', async () => {
    expect(await seriesNames('author=Albert%20Uderzo,penciller')).toEqual(['Astérix']);
    expect(await seriesNames('author=Albert%20Uderzo,writer')).toEqual(['Astérix']);
    expect(await seriesNames('author=Bill%20Finger,writer')).toEqual([]);
  });

  it('without a role any role matches; repeated authors are alternatives', async () => {
    expect(await seriesNames('author=albert%20uderzo')).toEqual(['Astérix']);
    expect(await seriesNames('author=Bob%20Kane,writer&author=Akira%20Toriyama,writer')).toEqual(['Batman', 'Dragon Ball']);
    expect(await seriesNames(`author=Johnston%20McCulley,writer&library_id=${lib.id}`)).toEqual([]);
  });

  it('books: GET books and GET series/{id}/books', async () => {
    expect(await bookTitles(`${BASE}/books?unpaged=true&author=Frank%20Miller,penciller`)).toEqual(['Batman 2']);
    expect(await bookTitles(`${BASE}/books?unpaged=true&author=Albert%20Uderzo,writer`)).toEqual(['Astérix 2']);
    const asterix = (await send<Page<Series>>(t, 'GET', `${BASE}/series?search=asterix`, auth)).body.content[0]!;
    expect(await bookTitles(`${BASE}/series/${asterix.id}/books?unpaged=true&author=René%20Goscinny,writer`)).toEqual(['Astérix 1']);
  });

  it('a parameter with neither name nor role is a 400 naming author', async () => {
    expect(await status400('GET', `${BASE}/series?author=,`)).toMatch(/author/);
  });
});

describe("the author condition of Komga's SeriesSearch and BookSearch bodies", () => {
  it('is / isNot with {name, role}', async () => {
    expect(await seriesByBody({ author: { operator: 'is', value: { name: 'Albert Uderzo', role: 'writer' } } })).toEqual(['Astérix']);
    expect(await seriesByBody({ author: { operator: 'isNot', value: { name: 'Frank Miller', role: null } } })).toEqual([
      'Astérix',
      'Dragon Ball',
      'Zorro',
      'Éclair',
    ]);
    expect(
      await seriesByBody({
        allOf: [{ author: { operator: 'is', value: { name: 'Akira Toriyama' } } }, { libraryId: { operator: 'is', value: lib.id } }],
      }),
    ).toEqual(['Dragon Ball']);
    expect(
      await bookTitles(`${BASE}/books/list?unpaged=true`, {
        condition: { author: { operator: 'is', value: { name: 'Bob Kane', role: 'writer' } } },
      }),
    ).toEqual(['Batman 1']);
    expect(
      await bookTitles(`${BASE}/books/list?unpaged=true`, {
        condition: { anyOf: [{ author: { operator: 'is', value: { role: 'penciller', name: 'Bill Finger' } } }] },
      }),
    ).toEqual(['Batman 1']);
  });

  it('operators Komga does not have for authors are a 400 naming them', async () => {
    expect(
      await status400('POST', `${BASE}/series/list`, { condition: { author: { operator: 'contains', value: { name: 'x' } } } }),
    ).toMatch(/"contains" for "author"/);
  });
});

describe('condition keys that are names of Object properties', () => {
  it('"constructor" and "toString" are unknown fields, "__proto__" a refused body, and as operators unknown ones (400)', async () => {
    for (const url of [`${BASE}/series/list`, `${BASE}/books/list`]) {
      for (const key of ['constructor', 'toString']) {
        expect(await status400('POST', url, { condition: { [key]: { operator: 'is', value: 1 } } })).toMatch(/Unsupported condition/);
      }
      // The JSON body parser refuses a __proto__ key before any route sees it.
      expect(await status400('POST', url, JSON.parse('{"condition": {"__proto__": {"operator": "is", "value": 1}}}'))).toMatch(
        /Malformed JSON/,
      );
      for (const operator of ['constructor', '__proto__', 'hasOwnProperty']) {
        expect(await status400('POST', url, { condition: { author: { operator, value: { name: 'x' } } } })).toMatch(
          new RegExp(`Unsupported operator "${operator}"`),
        );
      }
    }
  });

  it('a sort property named like one of them is unknown, and skipped as unknown sorts are', async () => {
    for (const url of [`${BASE}/series?sort=constructor,desc`, `${BASE}/books?sort=toString`, `${BASE}/books?sort=__proto__`]) {
      const res = await send<{ content: unknown[] }>(t, 'GET', url, auth);
      expect(res.status, url).toBe(200);
      expect(res.body.content.length, url).toBeGreaterThan(0);
    }
  });
});

describe('age_rating and release_year: ages as Komga shows them, never ignored', () => {
  it('age_rating=<age> matches the ratings that present as that age; None those without one', async () => {
    expect(await seriesNames('age_rating=13')).toEqual(['Batman', 'Zorro']);
    expect(await seriesNames('age_rating=0')).toEqual(['Astérix']);
    expect(await seriesNames('age_rating=17,13')).toEqual(['Batman', 'Dragon Ball', 'Zorro']);
    expect(await seriesNames('age_rating=None')).toEqual(['Éclair']);
    expect(await seriesNames('age_rating=18')).toEqual([]);
    expect(await status400('GET', `${BASE}/series?age_rating=adults`)).toMatch(/age_rating/);
  });

  it('release_year (repeatable)', async () => {
    expect(await seriesNames('release_year=1940')).toEqual(['Batman']);
    expect(await seriesNames('release_year=1984&release_year=1919')).toEqual(['Dragon Ball', 'Zorro']);
    expect(await seriesNames('release_year=1940&age_rating=17')).toEqual([]);
    expect(await status400('GET', `${BASE}/series?release_year=last`)).toMatch(/release_year/);
  });

  it('the ageRating condition: is, isNot, greaterThan, lessThan, isNull, null value', async () => {
    expect(await seriesByBody({ ageRating: { operator: 'is', value: 17 } })).toEqual(['Dragon Ball']);
    expect(await seriesByBody({ ageRating: { operator: 'greaterThan', value: 10 } })).toEqual(['Batman', 'Dragon Ball', 'Zorro']);
    expect(await seriesByBody({ ageRating: { operator: 'lessThan', value: 13 } })).toEqual(['Astérix']);
    expect(await seriesByBody({ ageRating: { operator: 'isNull' } })).toEqual(['Éclair']);
    expect(await seriesByBody({ ageRating: { operator: 'is', value: null } })).toEqual(['Éclair']);
    expect(await seriesByBody({ ageRating: { operator: 'isNot', value: 13 } })).toEqual(['Astérix', 'Dragon Ball', 'Éclair']);
    expect(await seriesByBody({ ageRating: { operator: 'isNotNull' } })).toEqual(['Astérix', 'Batman', 'Dragon Ball', 'Zorro']);
    expect(await status400('POST', `${BASE}/series/list`, { condition: { ageRating: { operator: 'after', value: 3 } } })).toMatch(
      /"after" for "ageRating"/,
    );
  });

  it('filters a list does not support are a 400 naming the parameter', async () => {
    expect(await status400('GET', `${BASE}/series?search_regex=^A,TITLE`)).toMatch(/search_regex/);
    expect(await status400('GET', `${BASE}/books?publisher=Dargaud`)).toMatch(/publisher/);
    expect(await status400('GET', `${BASE}/books?age_rating=13&released_after=2020-01-01`)).toMatch(/age_rating, released_after/);
    expect(
      await status400('POST', `${BASE}/series/list`, {
        condition: { releaseDate: { operator: 'after', dateTime: '2020-01-01T00:00:00Z' } },
      }),
    ).toMatch(/releaseDate/);
  });

  it('complete: no series knows its total book count, so none is complete', async () => {
    expect(await seriesNames('complete=true')).toEqual([]);
    expect(await seriesNames('complete=false')).toHaveLength(5);
  });
});

describe('facet lists from DISTINCT queries, scoped to the libraries asked', () => {
  it('genres, tags, publishers, languages', async () => {
    expect(await strings(`${BASE}/genres`)).toEqual(['Action', 'Adventure', 'Humor']);
    expect(await strings(`${BASE}/genres?library_id=${other.id}`)).toEqual(['Adventure']);
    expect(await strings(`${BASE}/genres/`)).toEqual(['Action', 'Adventure', 'Humor']);
    expect(await strings(`${BASE}/genres?collection_id=x`)).toEqual([]);
    expect(await strings(`${BASE}/tags`)).toEqual([]);
    expect(await strings(`${BASE}/publishers`)).toEqual([]);
    expect(await strings(`${BASE}/languages?library_id=${lib.id}`)).toEqual([]);
  });

  it('age-ratings as ages, "None" last; release-dates newest first', async () => {
    expect(await strings(`${BASE}/age-ratings`)).toEqual(['0', '13', '17', 'None']);
    expect(await strings(`${BASE}/age-ratings?library_id=${other.id}`)).toEqual(['13']);
    expect(await strings(`${BASE}/series/release-dates`)).toEqual(['1984', '1961', '1940', '1919']);
    expect(await strings(`${BASE}/series/release-dates?library_id=${lib.id}&library_id=${other.id}`)).toEqual([
      '1984',
      '1961',
      '1940',
      '1919',
    ]);
    expect(await strings(`${BASE}/series/release-dates?library_id=${other.id}`)).toEqual(['1919']);
  });

  it('authors: distinct (name, role) of present books, by library, series and name part', async () => {
    const authors = async (query = '') => {
      const res = await send<{ name: string; role: string }[]>(t, 'GET', `${BASE}/authors${query}`, auth);
      expect(res.status).toBe(200);
      expectKomga(res.body, 'array:AuthorDto');
      return res.body;
    };
    const all = await authors();
    expect(all.filter((a) => a.name === 'Albert Uderzo')).toEqual([
      { name: 'Albert Uderzo', role: 'penciller' },
      { name: 'Albert Uderzo', role: 'writer' },
    ]);
    expect(all).toHaveLength(10);
    expect(await authors(`?library_id=${other.id}`)).toEqual([{ name: 'Johnston McCulley', role: 'writer' }]);
    expect((await authors('?search=MILL')).map((a) => a.name)).toEqual(['Frank Miller', 'Frank Miller']);
    const batman = (await send<Page<Series>>(t, 'GET', `${BASE}/series?search=batman`, auth)).body.content[0]!;
    expect((await authors(`?series_id=${batman.id}`)).map((a) => `${a.name}/${a.role}`)).toEqual([
      'Bill Finger/penciller',
      'Bob Kane/writer',
      'Frank Miller/penciller',
      'Frank Miller/writer',
    ]);
  });

  it('a deleted book leaves the author list and the author filter', async () => {
    await rm(path.join(lib.dir, 'Batman', 'Batman 002.cbz'));
    await scan(t, lib.id);
    const res = await send<{ name: string }[]>(t, 'GET', `${BASE}/authors?search=miller`, auth);
    expect(res.body).toEqual([]);
    expect(await seriesNames('author=Frank%20Miller')).toEqual([]);
    expect(await seriesNames('author=Bob%20Kane')).toEqual(['Batman']);
  });
});
