import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

// Each user's want-to-read shelf (issue 37): put, list (newest first, as series views), take off, idempotence,
// 404 for series the user may not see, and series that become hidden dropping out.

let t: CatalogTestApp;
const S: Record<string, string> = {};
const W = '/api/v1/me/want-to-read';

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => {
    for (const [name, rating] of [
      ['Kind', 'Everyone'],
      ['Calm', 'Everyone'],
      ['Grim', 'Mature 17+'],
    ] as Array<[string, string]>)
      await makeCbz(path.join(dir, name), `${name} 1.cbz`, {
        pages: 1,
        pageSize: { width: 60, height: 90 },
        comicInfo: { Series: name, Number: 1, AgeRating: rating },
      });
  });
  const all = await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=50');
  for (const s of all.body.data) S[s.name] = s.id;
  expect(Object.keys(S).sort()).toEqual(['Calm', 'Grim', 'Kind']);
});
afterAll(() => t.close());

const shelf = async (headers: Headers) => (await call<Paged<{ id: string; name: string; book_count: number }>>(t, headers, 'GET', W)).body;

describe('Want to read', () => {
  it('puts, lists newest first as series views, is idempotent, and takes off', async () => {
    const user = await createUser(t, 'reader');
    expect((await shelf(user.headers)).total).toBe(0);
    for (const name of ['Kind', 'Grim', 'Calm']) expect((await call(t, user.headers, 'PUT', `${W}/${S[name]}`)).status).toBe(204);
    // Again: no error, and it keeps its place (the time it was first put).
    const again = await call(t, user.headers, 'PUT', `${W}/${S.Kind}`);
    expect(again.status).toBe(204);
    expect(again.raw.body).toBe('');
    const listed = await shelf(user.headers);
    expect(listed.data.map((s) => s.name)).toEqual(['Calm', 'Grim', 'Kind']);
    expect(listed.data[0]).toMatchObject({ id: S.Calm, book_count: 1 });
    expect(listed.total).toBe(3);
    const paged = await call<Paged<{ name: string }>>(t, user.headers, 'GET', `${W}?pageSize=2&page=2`);
    expect(paged.body).toMatchObject({ total: 3, totalPages: 2 });
    expect(paged.body.data.map((s) => s.name)).toEqual(['Kind']);

    // Another user's shelf is its own.
    const other = await createUser(t, 'reader');
    expect((await shelf(other.headers)).total).toBe(0);

    expect((await call(t, user.headers, 'DELETE', `${W}/${S.Grim}`)).status).toBe(204);
    expect((await call(t, user.headers, 'DELETE', `${W}/${S.Grim}`)).status).toBe(204);
    expect((await shelf(user.headers)).data.map((s) => s.name)).toEqual(['Calm', 'Kind']);
  });

  it('a series the user may not see is 404 like one that does not exist, and drops out while hidden', async () => {
    const user = await createUser(t, 'reader');
    expect((await call(t, user.headers, 'PUT', `${W}/${S.Grim}`)).status).toBe(204);
    expect((await call(t, user.headers, 'PUT', `${W}/${S.Kind}`)).status).toBe(204);
    const limit = (age_restriction: unknown) => api(t, 'PATCH', `/api/v1/users/${user.id}`, { age_restriction });
    expect((await limit({ max_age: 12, include_unrated: false })).status).toBe(200);
    const shown = await shelf(user.headers);
    expect(shown.data.map((s) => s.name)).toEqual(['Kind']);
    expect(shown.total).toBe(1);
    const unknown = await call<{ error: string; message: string }>(t, user.headers, 'PUT', `${W}/0190a000-0000-7000-8000-00000000beef`);
    const grim = await call<{ error: string; message: string }>(t, user.headers, 'PUT', `${W}/${S.Grim}`);
    expect(grim.status).toBe(404);
    expect(grim.body).toEqual(unknown.body);
    expect((await limit(null)).status).toBe(200);
    expect((await shelf(user.headers)).data.map((s) => s.name)).toEqual(['Kind', 'Grim']);
  });

  it('refuses malformed ids and callers without series-read', async () => {
    const user = await createUser(t, 'reader');
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await call<{ error: string }>(t, user.headers, method, `${W}/not-a-uuid`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('BadRequest');
    }
    expect((await call(t, user.headers, 'GET', `${W}?page=0`)).status).toBe(400);
    const key = await call<{ key: string }>(t, user.headers, 'POST', '/api/v1/api-keys', { name: 'pages', permissions: ['pages-read'] });
    const res = await call<{ details: unknown }>(t, { 'x-api-key': key.body.key }, 'PUT', `${W}/${S.Kind}`);
    expect(res.status).toBe(403);
    expect(res.body.details).toEqual({ required_permission: 'series-read' });
  });
});
