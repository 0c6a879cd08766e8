import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

// The household rules through the native API: library lists, age limits with and without unrated series,
// sharing labels (exclusion wins, allow rules ORed), cascade to books, admins seeing everything, the user API's
// fields and errors, the default of new accounts, and the preview the administration screen shows.

let t: CatalogTestApp;
let libA: string;
let libB: string;
const series: Record<string, string> = {};
const books: Record<string, string> = {};

/** Series folders of library A: name → ComicInfo AgeRating of its two books (null: none). */
const A: Record<string, [string | null, string | null]> = {
  Kids: ['Everyone', 'Everyone 10+'],
  Teens: ['Everyone', 'Teen'],
  Grown: ['Everyone', 'Mature 17+'],
  Unrated: [null, 'Rating Pending'],
  Labelled: ['G', null],
};

beforeAll(async () => {
  t = await createCatalogApp();
  libA = (
    await scannedLibrary(t, async (dir) => {
      for (const [name, ratings] of Object.entries(A))
        for (const [i, rating] of ratings.entries())
          await makeCbz(path.join(dir, name), `${name} ${i + 1}.cbz`, {
            pages: 1,
            comicInfo: { Series: name, Number: i + 1, Title: `${name} book ${i + 1}`, ...(rating ? { AgeRating: rating } : {}) },
          });
    })
  ).id;
  libB = (await scannedLibrary(t, async (dir) => void (await makeCbz(path.join(dir, 'Other'), 'Other 1.cbz', { pages: 1 })))).id;
  const all = await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=50');
  for (const s of all.body.data) series[s.name] = s.id;
  const allBooks = await api<Paged<{ id: string; title: string }>>(t, 'GET', '/api/v1/books?pageSize=50');
  for (const b of allBooks.body.data) books[b.title] = b.id;
  expect(Object.keys(series).sort()).toEqual(['Grown', 'Kids', 'Labelled', 'Other', 'Teens', 'Unrated']);
});
afterAll(() => t.close());

const names = async (headers: Headers): Promise<string[]> =>
  (await call<Paged<{ name: string }>>(t, headers, 'GET', '/api/v1/series?pageSize=50')).body.data.map((s) => s.name).sort();

async function restricted(access: Record<string, unknown>): Promise<{ id: string; headers: Headers }> {
  const user = await createUser(t, 'reader');
  const res = await api(t, 'PATCH', `/api/v1/users/${user.id}`, access);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return user;
}

describe('A series is as old as its highest-rated book', () => {
  it('shows the effective rating and its age; unrated when no book is rated', async () => {
    const view = async (name: string) =>
      (await api<{ metadata: { age_rating: string | null; age: number | null } }>(t, 'GET', `/api/v1/series/${series[name]}`)).body
        .metadata;
    expect(await view('Kids')).toMatchObject({ age_rating: 'Everyone 10+', age: 10 });
    expect(await view('Teens')).toMatchObject({ age_rating: 'Teen', age: 13 });
    expect(await view('Grown')).toMatchObject({ age_rating: 'Mature 17+', age: 17 });
    expect(await view('Labelled')).toMatchObject({ age_rating: 'G', age: 0 });
    expect((await view('Unrated')).age).toBeNull();
  });
});

describe('Library access', () => {
  it('a user limited to one library sees its series, libraries and counts only; the other library is 404', async () => {
    const user = await restricted({ library_access: { all: false, library_ids: [libA] } });
    expect(await names(user.headers)).toEqual(['Grown', 'Kids', 'Labelled', 'Teens', 'Unrated']);
    expect((await call<{ restricted: boolean }>(t, user.headers, 'GET', '/api/v1/auth/me')).body.restricted).toBe(true);
    expect((await api<{ restricted: boolean }>(t, 'GET', '/api/v1/auth/me')).body.restricted).toBe(false);
    const libraries = await call<Paged<{ id: string; series_count: number }>>(t, user.headers, 'GET', '/api/v1/libraries');
    expect(libraries.body.data.map((l) => l.id)).toEqual([libA]);
    expect(libraries.body.total).toBe(1);
    expect((await call(t, user.headers, 'GET', `/api/v1/libraries/${libB}`)).status).toBe(404);
    expect((await call(t, user.headers, 'GET', `/api/v1/series/${series.Other}`)).status).toBe(404);
    expect((await call(t, user.headers, 'GET', `/api/v1/books/${books['Other 1']}`)).status).toBe(404);
  });

  it('no library at all: nothing, and every id is 404', async () => {
    const user = await restricted({ library_access: { all: false, library_ids: [] } });
    expect(await names(user.headers)).toEqual([]);
    expect((await call<Paged<unknown>>(t, user.headers, 'GET', '/api/v1/books')).body.total).toBe(0);
    expect((await call(t, user.headers, 'GET', `/api/v1/series/${series.Kids}`)).status).toBe(404);
  });

  it('unknown library ids are refused with the ids named', async () => {
    const user = await createUser(t, 'reader');
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await api<{ error: string; details: { library_ids: string[] } }>(t, 'PATCH', `/api/v1/users/${user.id}`, {
      library_access: { all: false, library_ids: [libA, unknown] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.library_ids).toEqual([unknown]);
  });
});

describe('Age limits', () => {
  it('max 12 without unrated: rated up to 12 only, their books too', async () => {
    const user = await restricted({ age_restriction: { max_age: 12, include_unrated: false } });
    expect(await names(user.headers)).toEqual(['Kids', 'Labelled']);
    // Both books of Teens are hidden: the series' rating cascades, though one book is rated Everyone.
    expect((await call(t, user.headers, 'GET', `/api/v1/books/${books['Teens book 1']}`)).status).toBe(404);
    expect((await call(t, user.headers, 'GET', `/api/v1/books/${books['Teens book 1']}/pages/1`)).status).toBe(404);
    expect((await call(t, user.headers, 'GET', `/api/v1/series/${series.Teens}/thumbnail`)).status).toBe(404);
  });

  it('max 13 with unrated: teens and unrated series too', async () => {
    const user = await restricted({ age_restriction: { max_age: 13, include_unrated: true } });
    expect(await names(user.headers)).toEqual(['Kids', 'Labelled', 'Other', 'Teens', 'Unrated']);
  });

  it('the user API shows what was set, and null lifts it', async () => {
    const user = await restricted({ age_restriction: { max_age: 7, include_unrated: false }, labels_exclude: [' Secret ', 'secret'] });
    const view = await api<Record<string, unknown>>(t, 'GET', `/api/v1/users/${user.id}`);
    expect(view.body).toMatchObject({
      library_access: { all: true },
      age_restriction: { max_age: 7, include_unrated: false },
      labels_allow: [],
      labels_exclude: ['secret'],
    });
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { age_restriction: null })).status).toBe(200);
    expect((await api<Record<string, unknown>>(t, 'GET', `/api/v1/users/${user.id}`)).body.age_restriction).toBeNull();
  });

  it('a bad age limit is a 400 with the field named', async () => {
    const user = await createUser(t, 'reader');
    const res = await api<{ error: string; details: unknown }>(t, 'PATCH', `/api/v1/users/${user.id}`, {
      age_restriction: { max_age: -1 },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.details)).toContain('age_restriction');
  });
});

describe('Sharing labels', () => {
  beforeAll(async () => {
    const set = async (name: string, labels: string[]) =>
      expect((await api(t, 'PATCH', `/api/v1/series/${series[name]}`, { sharing_labels: labels })).status).toBe(200);
    await set('Labelled', ['Secret', 'family']);
    await set('Kids', ['family']);
    await set('Teens', ['friends']);
  });

  it('series show their labels, trimmed and lower-cased', async () => {
    const view = await api<{ sharing_labels: string[] }>(t, 'GET', `/api/v1/series/${series.Labelled}`);
    expect(view.body.sharing_labels).toEqual(['family', 'secret']);
  });

  it('excluded labels hide, allowed labels are ORed, and exclusion wins', async () => {
    expect(await names((await restricted({ labels_exclude: ['secret'] })).headers)).toEqual(['Grown', 'Kids', 'Other', 'Teens', 'Unrated']);
    expect(await names((await restricted({ labels_allow: ['family', 'friends'] })).headers)).toEqual(['Kids', 'Labelled', 'Teens']);
    expect(await names((await restricted({ labels_allow: ['family'], labels_exclude: ['SECRET'] })).headers)).toEqual(['Kids']);
  });

  it('PATCH /series/{id} needs series-write and refuses unknown fields', async () => {
    const reader = await createUser(t, 'reader');
    expect((await call(t, reader.headers, 'PATCH', `/api/v1/series/${series.Kids}`, { sharing_labels: [] })).status).toBe(403);
    expect((await api(t, 'PATCH', `/api/v1/series/${series.Kids}`, { name: 'x' })).status).toBe(400);
  });
});

describe('Who is not restricted', () => {
  it('an administrator sees everything whatever is stored for it', async () => {
    const admin = await createUser(t, 'admin');
    expect((await api(t, 'PATCH', `/api/v1/users/${admin.id}`, { library_access: { all: false, library_ids: [] } })).status).toBe(200);
    expect(await names(admin.headers)).toEqual(['Grown', 'Kids', 'Labelled', 'Other', 'Teens', 'Unrated']);
  });

  it('new accounts see every library unless the server setting says none', async () => {
    const open = await createUser(t, 'reader');
    expect((await api<Record<string, unknown>>(t, 'GET', `/api/v1/users/${open.id}`)).body.library_access).toEqual({ all: true });
    expect((await api(t, 'PUT', '/api/v1/admin/settings/new_users_see_all_libraries', { value: false })).status).toBeLessThan(300);
    try {
      const closed = await createUser(t, 'reader');
      expect((await api<Record<string, unknown>>(t, 'GET', `/api/v1/users/${closed.id}`)).body.library_access).toEqual({
        all: false,
        library_ids: [],
      });
      expect(await names(closed.headers)).toEqual([]);
    } finally {
      await api(t, 'PUT', '/api/v1/admin/settings/new_users_see_all_libraries', { value: true });
    }
  });
});

describe('What the administration screen shows beside the settings', () => {
  it('the summary of a user and the preview of unsaved settings count by the same rules', async () => {
    const user = await restricted({
      library_access: { all: false, library_ids: [libA] },
      age_restriction: { max_age: 12, include_unrated: false },
    });
    const summary = await api<Record<string, number>>(t, 'GET', `/api/v1/users/${user.id}/access-summary`);
    expect(summary.body).toEqual({
      libraries_visible: 1,
      libraries_total: 2,
      series_visible: 2,
      series_total: 6,
      books_visible: 4,
      books_total: 11,
    });
    const preview = await api<Record<string, number>>(t, 'POST', '/api/v1/users/access-preview', { labels_exclude: ['secret'] });
    expect(preview.body).toMatchObject({ libraries_visible: 2, series_visible: 5, series_total: 6 });
  });
});
