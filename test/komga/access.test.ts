import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { makeCbz } from '../media/fixtures.js';
import { enableKomga, expectKomga, send } from './helpers.js';

/**
 * What a household member sees through the Komga API (issue 36): the user DTO carries the access an administrator
 * set with the native API (libraries, age limit, sharing labels), the series DTO its sharing labels and the age of
 * its rating by the shared table, and every list, search, On Deck and by-id lookup leaves out what the user may
 * not see (404 for an id, like an unknown one).
 *
 * Library A: Kids (2 books, Everyone), Teens (Teen), Mature (Everyone and Mature 17+: as old as its oldest-rated
 * book), Unrated (no rating), Labelled (Everyone; labels Family and Secret). Library B: Elsewhere (Everyone).
 */
interface Page<T> {
  content: T[];
  totalElements: number;
}
interface Series {
  id: string;
  name: string;
  metadata: { ageRating?: number; sharingLabels: string[] };
}
interface Book {
  id: string;
  seriesId: string;
  metadata: { title: string };
}
interface User {
  id: string;
  sharedAllLibraries: boolean;
  sharedLibrariesIds: string[];
  labelsAllow: string[];
  labelsExclude: string[];
  ageRestriction: { age: number; restriction: string } | null;
  roles: string[];
}

const BASE = '/komga/api/v1';
const SERIES = ['Elsewhere', 'Kids', 'Labelled', 'Mature', 'Teens', 'Unrated'];

let t: CatalogTestApp;
let libA: { id: string };
let libB: { id: string };
/** Library A only, up to 13 without unrated series, never "secret". */
let restricted: Headers;
let restrictedId: string;
/** Every library, up to 13 with unrated series, only "family". */
let family: Headers;
const seriesId: Record<string, string> = {};
const bookId: Record<string, string> = {};

const book = (dir: string, series: string, n: number, rating?: string) =>
  makeCbz(path.join(dir, series), `${series} ${n}.cbz`, {
    pages: 1,
    pageSize: { width: 40, height: 60 },
    comicInfo: { Series: series, Number: String(n), Title: `${series} ${n}`, ...(rating ? { AgeRating: rating } : {}) },
  });

async function libraryA(dir: string): Promise<void> {
  await book(dir, 'Kids', 1, 'Everyone');
  await book(dir, 'Kids', 2, 'Everyone');
  await book(dir, 'Teens', 1, 'Teen');
  await book(dir, 'Mature', 1, 'Everyone');
  await book(dir, 'Mature', 2, 'Mature 17+');
  await book(dir, 'Unrated', 1);
  await book(dir, 'Labelled', 1, 'Everyone');
}

async function ok<T>(headers: Headers, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<T> {
  const res = await send<T>(t, method, url, headers, body);
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}
const seriesNames = async (headers: Headers, url: string, body?: unknown): Promise<string[]> => {
  const page = await ok<Page<Series>>(headers, body === undefined ? 'GET' : 'POST', url, body);
  expectKomga(page, 'PageSeriesDto');
  return page.content.map((s) => s.name).sort();
};
const bookTitles = async (headers: Headers, url: string, body?: unknown): Promise<string[]> => {
  const page = await ok<Page<Book>>(headers, body === undefined ? 'GET' : 'POST', url, body);
  expectKomga(page, 'PageBookDto');
  return page.content.map((b) => b.metadata.title).sort();
};
const me = async (headers: Headers): Promise<User> => {
  const user = await ok<User>(headers, 'GET', '/komga/api/v2/users/me');
  expectKomga(user, 'UserDto');
  return user;
};

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  libA = await scannedLibrary(t, libraryA);
  libB = await scannedLibrary(t, (dir) => book(dir, 'Elsewhere', 1, 'Everyone').then(() => undefined));
  const all = await ok<Page<Series>>(t.headers, 'GET', `${BASE}/series?unpaged=true`);
  for (const s of all.content) seriesId[s.name] = s.id;
  for (const b of (await ok<Page<Book>>(t.headers, 'GET', `${BASE}/books?unpaged=true`)).content) bookId[b.metadata.title] = b.id;
  expect(await api(t, 'PATCH', `/api/v1/series/${seriesId.Labelled}`, { sharing_labels: ['Family', ' Secret '] })).toMatchObject({
    status: 200,
  });

  const r = await createUser(t, 'reader');
  restricted = basic(r.username, r.password);
  restrictedId = r.id;
  // Read before the restriction: On Deck would offer Kids 2 and Mature 2.
  for (const title of ['Kids 1', 'Mature 1'])
    expect((await send(t, 'PATCH', `${BASE}/books/${bookId[title]}/read-progress`, restricted, { completed: true })).status).toBe(204);
  expect(await bookTitles(restricted, `${BASE}/books/ondeck`)).toEqual(['Kids 2', 'Mature 2']);
  const patched = await api(t, 'PATCH', `/api/v1/users/${r.id}`, {
    library_access: { all: false, library_ids: [libA.id] },
    age_restriction: { max_age: 13, include_unrated: false },
    labels_exclude: ['Secret'],
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);

  const f = await createUser(t, 'reader');
  family = basic(f.username, f.password);
  const second = await api(t, 'PATCH', `/api/v1/users/${f.id}`, {
    age_restriction: { max_age: 13, include_unrated: true },
    labels_allow: ['family'],
  });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
});
afterAll(() => t.close());

describe('users/me: the access an administrator set, as Komga shows it', () => {
  it('a restricted reader: its libraries, labels and ALLOW_ONLY for a limit that hides unrated series', async () => {
    const user = await me(restricted);
    expect(user).toMatchObject({
      id: restrictedId,
      sharedAllLibraries: false,
      sharedLibrariesIds: [libA.id],
      labelsAllow: [],
      labelsExclude: ['secret'],
      ageRestriction: { age: 13, restriction: 'ALLOW_ONLY' },
    });
    expect((await send<User>(t, 'GET', `${BASE}/users/me`, restricted)).body).toEqual(user);
  });

  it('a limit that shows unrated series is EXCLUDE of the next age (Komga hides that age and older, not the unrated)', async () => {
    expect(await me(family)).toMatchObject({
      sharedAllLibraries: true,
      sharedLibrariesIds: [],
      labelsAllow: ['family'],
      labelsExclude: [],
      ageRestriction: { age: 14, restriction: 'EXCLUDE' },
    });
  });

  it('an administrator shares every library, without restriction', async () => {
    const admin = await me(t.headers);
    expect(admin).toMatchObject({
      sharedAllLibraries: true,
      sharedLibrariesIds: [],
      labelsAllow: [],
      labelsExclude: [],
      ageRestriction: null,
    });
    expect(admin.roles).toContain('ADMIN');
  });
});

describe('series DTOs: sharing labels and the age of the rating', () => {
  it('sharingLabels are the series sharing labels (lower-cased); none for the others', async () => {
    const labelled = await ok<Series>(t.headers, 'GET', `${BASE}/series/${seriesId.Labelled}`);
    expectKomga(labelled, 'SeriesDto');
    expect(labelled.metadata.sharingLabels).toEqual(['family', 'secret']);
    expect((await ok<Series>(t.headers, 'GET', `${BASE}/series/${seriesId.Kids}`)).metadata.sharingLabels).toEqual([]);
  });

  it('ageRating is the age the access rules compare: the oldest-rated book, by the shared table', async () => {
    const ages: Record<string, number | undefined> = {};
    for (const s of (await ok<Page<Series>>(t.headers, 'GET', `${BASE}/series?unpaged=true`)).content) ages[s.name] = s.metadata.ageRating;
    expect(ages).toEqual({ Elsewhere: 0, Kids: 0, Labelled: 0, Mature: 17, Teens: 13, Unrated: undefined });
    const native = await api<{ metadata: { age: number | null; age_rating: string | null } }>(
      t,
      'GET',
      `/api/v1/series/${seriesId.Mature}`,
    );
    expect(native.body.metadata).toMatchObject({ age: 17, age_rating: 'Mature 17+' });
  });

  it('a sharing_label filter is refused (the series filter cannot select by label), never answered wrongly', async () => {
    const res = await send<{ message: string }>(t, 'GET', `${BASE}/series?sharing_label=family`, t.headers);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/sharing_label/);
  });
});

describe('a restricted reader sees only what its access shows', () => {
  it('the administrator sees everything', async () => {
    expect(await seriesNames(t.headers, `${BASE}/series?unpaged=true`)).toEqual(SERIES);
  });

  it('series lists, search and condition bodies', async () => {
    expect(await seriesNames(restricted, `${BASE}/series?unpaged=true`)).toEqual(['Kids', 'Teens']);
    expect(await seriesNames(family, `${BASE}/series?unpaged=true`)).toEqual(['Labelled']);
    expect(await seriesNames(restricted, `${BASE}/series?search=mature`)).toEqual([]);
    expect(await seriesNames(restricted, `${BASE}/series/list?unpaged=true`, { fullTextSearch: 'Labelled' })).toEqual([]);
    expect(await seriesNames(restricted, `${BASE}/series/list`, { condition: { libraryId: { operator: 'is', value: libB.id } } })).toEqual(
      [],
    );
    expect(await seriesNames(restricted, `${BASE}/series/new`)).toEqual(['Kids', 'Teens']);
    expect(await seriesNames(restricted, `${BASE}/series?age_rating=17`)).toEqual([]);
  });

  it('book lists, search, On Deck and latest', async () => {
    expect(await bookTitles(restricted, `${BASE}/books?unpaged=true`)).toEqual(['Kids 1', 'Kids 2', 'Teens 1']);
    expect(await bookTitles(restricted, `${BASE}/books?search=mature`)).toEqual([]);
    expect(await bookTitles(restricted, `${BASE}/books/list?unpaged=true`, { fullTextSearch: 'Elsewhere' })).toEqual([]);
    expect(await bookTitles(restricted, `${BASE}/books/ondeck`)).toEqual(['Kids 2']);
    expect(await bookTitles(restricted, `${BASE}/books/latest?unpaged=true`)).toEqual(['Kids 1', 'Kids 2', 'Teens 1']);
  });

  it('libraries and facets', async () => {
    const libraries = await ok<{ id: string }[]>(restricted, 'GET', `${BASE}/libraries`);
    expect(libraries.map((l) => l.id)).toEqual([libA.id]);
    expect((await send(t, 'GET', `${BASE}/libraries/${libB.id}`, restricted)).status).toBe(404);
    expect((await send(t, 'GET', `${BASE}/libraries/${libA.id}`, restricted)).status).toBe(200);
    expect(await ok<string[]>(restricted, 'GET', `${BASE}/age-ratings`)).toEqual(['0', '13']);
    expect(await ok<string[]>(family, 'GET', `${BASE}/age-ratings`)).toEqual(['0']);
  });

  it('a hidden series or book id is a 404, whatever hides it (age, label, library)', async () => {
    for (const name of ['Mature', 'Labelled', 'Elsewhere', 'Unrated']) {
      const id = seriesId[name]!;
      for (const url of [
        `${BASE}/series/${id}`,
        `${BASE}/series/${id}/books`,
        `${BASE}/series/${id}/thumbnail`,
        `/komga/api/v2/series/${id}/read-progress/tachiyomi`,
      ])
        expect((await send(t, 'GET', url, restricted)).status, `${name}: ${url}`).toBe(404);
    }
    for (const title of ['Mature 2', 'Labelled 1', 'Elsewhere 1']) {
      const id = bookId[title]!;
      for (const url of [
        `${BASE}/books/${id}`,
        `${BASE}/books/${id}/file`,
        `${BASE}/books/${id}/pages`,
        `${BASE}/books/${id}/pages/1`,
        `${BASE}/books/${id}/next`,
      ])
        expect((await send(t, 'GET', url, restricted)).status, `${title}: ${url}`).toBe(404);
      expect((await send(t, 'PATCH', `${BASE}/books/${id}/read-progress`, restricted, { completed: true })).status).toBe(404);
    }
    expect((await send(t, 'GET', `${BASE}/books/${bookId['Kids 1']}`, restricted)).status).toBe(200);
    expect((await send(t, 'GET', `${BASE}/series/${seriesId.Labelled}`, family)).status).toBe(200);
    expect((await send(t, 'GET', `${BASE}/series/${seriesId.Unrated}`, family)).status).toBe(404);
  });

  it('lifting the restriction holds on the next request', async () => {
    const lifted = await api(t, 'PATCH', `/api/v1/users/${restrictedId}`, {
      library_access: { all: true },
      age_restriction: null,
      labels_exclude: [],
    });
    expect(lifted.status).toBe(200);
    expect(await me(restricted)).toMatchObject({ sharedAllLibraries: true, labelsExclude: [], ageRestriction: null });
    expect(await seriesNames(restricted, `${BASE}/series?unpaged=true`)).toEqual(SERIES);
  });
});
