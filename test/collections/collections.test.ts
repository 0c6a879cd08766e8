import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/db/ids.js';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

// Collections through the native API (issue 37): private and shared ones and who may change them, unique names,
// order, members added, removed and reordered, covers, the reverse lookup, validation, and the household rules
// inside collections (a restricted reader sees only its series, in counts too; a collection of hidden series only
// is absent for it; its edits leave what it cannot see in place).

interface Collection {
  id: string;
  name: string;
  summary: string;
  ordered: boolean;
  shared: boolean;
  owner_user_id: string | null;
  series_count: number;
  series_ids: string[];
  cover_series_id: string | null;
  thumbnail_series_id: string | null;
  source: string;
  edited: boolean;
}
interface ErrorReply {
  error: string;
  message: string;
  details: Record<string, unknown> | null;
}

let t: CatalogTestApp;
let libA: string;
let libB: string;
const S: Record<string, string> = {};
let reader: { id: string; headers: Headers };
let otherReader: { id: string; headers: Headers };
/** A maintainer an administrator granted the shared collections' permissions (no role holds them: decision 040). */
let maintainer: { id: string; headers: Headers };
/** A maintainer as the role makes it: its own collections only. */
let plainMaintainer: { id: string; headers: Headers };
/** Sees library A's series rated 12 or younger: Alpha and Beta (not Gamma, rated 17; not Delta, of library B). */
let restricted: { id: string; headers: Headers };
/** A maintainer with the same restriction, also granted the shared collections' permissions. */
let restrictedMaintainer: { id: string; headers: Headers };

const C = '/api/v1/collections';
const small = { pages: 1, pageSize: { width: 60, height: 90 } };

async function restrict(user: { id: string }): Promise<void> {
  const res = await api(t, 'PATCH', `/api/v1/users/${user.id}`, {
    library_access: { all: false, library_ids: [libA] },
    age_restriction: { max_age: 12, include_unrated: false },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  t = await createCatalogApp();
  libA = (
    await scannedLibrary(t, async (dir) => {
      for (const [name, rating] of [
        ['Alpha', 'Everyone'],
        ['Beta', 'Everyone'],
        ['Gamma', 'Mature 17+'],
      ] as Array<[string, string]>)
        await makeCbz(path.join(dir, name), `${name} 1.cbz`, { ...small, comicInfo: { Series: name, Number: 1, AgeRating: rating } });
    })
  ).id;
  libB = (
    await scannedLibrary(t, async (dir) => {
      await makeCbz(path.join(dir, 'Delta'), 'Delta 1.cbz', { ...small, comicInfo: { Series: 'Delta', Number: 1, AgeRating: 'Everyone' } });
    })
  ).id;
  const all = await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=50');
  for (const s of all.body.data) S[s.name] = s.id;
  expect(Object.keys(S).sort()).toEqual(['Alpha', 'Beta', 'Delta', 'Gamma']);
  const curator = ['collections-write', 'collections-delete'];
  [reader, otherReader, maintainer, restricted, restrictedMaintainer, plainMaintainer] = await Promise.all([
    createUser(t, 'reader'),
    createUser(t, 'reader'),
    createUser(t, 'maintainer', curator),
    createUser(t, 'reader'),
    createUser(t, 'maintainer', curator),
    createUser(t, 'maintainer'),
  ]);
  await restrict(restricted);
  await restrict(restrictedMaintainer);
});
afterAll(() => t.close());

const list = async (headers: Headers, query = '') => (await call<Paged<Collection>>(t, headers, 'GET', `${C}?pageSize=100${query}`)).body;
const seriesNames = async (headers: Headers, id: string) =>
  (await call<Paged<{ name: string }>>(t, headers, 'GET', `${C}/${id}/series`)).body.data.map((s) => s.name);
const ids = (...names: string[]) => names.map((n) => S[n]!);

async function create(headers: Headers, body: Record<string, unknown>): Promise<Collection> {
  const res = await call<Collection>(t, headers, 'POST', C, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('Private collections', () => {
  it('a reader creates one, sees it in its list, by id and its series in the order given; nobody else sees it', async () => {
    const mine = await create(reader.headers, {
      name: 'My Picks',
      series_ids: ids('Beta', 'Alpha', 'Beta'),
      ordered: true,
      summary: 'Good ones',
    });
    expect(mine).toMatchObject({
      name: 'My Picks',
      summary: 'Good ones',
      ordered: true,
      shared: false,
      owner_user_id: reader.id,
      series_count: 2,
      series_ids: ids('Beta', 'Alpha'),
      cover_series_id: null,
      thumbnail_series_id: S.Beta,
      source: 'user',
      edited: false,
    });
    expect((await call<Collection>(t, reader.headers, 'GET', `${C}/${mine.id}`)).body).toEqual(mine);
    expect((await list(reader.headers)).data.map((c) => c.name)).toContain('My Picks');
    expect(await seriesNames(reader.headers, mine.id)).toEqual(['Beta', 'Alpha']);
    const page = await call<Paged<{ name: string; book_count: number }>>(
      t,
      reader.headers,
      'GET',
      `${C}/${mine.id}/series?pageSize=1&page=2`,
    );
    expect(page.body).toMatchObject({ total: 2, totalPages: 2, page: 2 });
    expect(page.body.data).toMatchObject([{ name: 'Alpha', book_count: 1 }]);

    // Another reader, and an administrator too: the same 404 as an id that does not exist.
    for (const headers of [otherReader.headers, t.headers]) {
      expect((await list(headers)).data.map((c) => c.id)).not.toContain(mine.id);
      for (const [method, url, body] of [
        ['GET', `${C}/${mine.id}`],
        ['GET', `${C}/${mine.id}/series`],
        ['GET', `${C}/${mine.id}/thumbnail`],
        ['PATCH', `${C}/${mine.id}`, { name: 'Taken' }],
        ['POST', `${C}/${mine.id}/series`, { series_ids: ids('Delta') }],
        ['PUT', `${C}/${mine.id}/series/order`, { series_ids: ids('Alpha', 'Beta') }],
        ['DELETE', `${C}/${mine.id}/series/${S.Alpha}`],
        ['DELETE', `${C}/${mine.id}`],
      ] as const) {
        const res = await call<ErrorReply>(t, headers, method, url, body);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.body.error).toBe('NotFound');
      }
      expect(
        (await call<Paged<Collection>>(t, headers, 'GET', `/api/v1/series/${S.Alpha}/collections`)).body.data.map((c) => c.id),
      ).not.toContain(mine.id);
    }
    expect((await call(t, reader.headers, 'GET', `${C}/${mine.id}`)).status).toBe(200);
  });

  it('the owner changes and deletes it; an unordered collection sorts by name', async () => {
    const c = await create(reader.headers, { name: 'Changing', series_ids: ids('Beta', 'Alpha') });
    expect(await seriesNames(reader.headers, c.id)).toEqual(['Alpha', 'Beta']);
    expect(c.series_ids).toEqual(ids('Alpha', 'Beta'));
    expect(c.thumbnail_series_id).toBe(S.Alpha);
    const patched = await call<Collection>(t, reader.headers, 'PATCH', `${C}/${c.id}`, {
      name: 'Changed',
      summary: 'now ordered',
      ordered: true,
      seriesIds: ids('Delta', 'Beta', 'Alpha'),
      cover_series_id: S.Alpha,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Changed',
      summary: 'now ordered',
      ordered: true,
      series_count: 3,
      series_ids: ids('Delta', 'Beta', 'Alpha'),
      cover_series_id: S.Alpha,
      thumbnail_series_id: S.Alpha,
    });
    const thumb = await call(t, reader.headers, 'GET', `${C}/${c.id}/thumbnail`);
    expect(thumb.status).toBe(200);
    expect(thumb.raw.headers['content-type']).toMatch(/^image\//);
    // Removing the cover's series takes the cover back to the first series.
    expect((await call(t, reader.headers, 'DELETE', `${C}/${c.id}/series/${S.Alpha}`)).status).toBe(204);
    expect((await call<Collection>(t, reader.headers, 'GET', `${C}/${c.id}`)).body).toMatchObject({
      series_ids: ids('Delta', 'Beta'),
      cover_series_id: null,
      thumbnail_series_id: S.Delta,
    });
    expect((await call(t, reader.headers, 'DELETE', `${C}/${c.id}/series/${S.Alpha}`)).status).toBe(404);
    expect((await call(t, reader.headers, 'DELETE', `${C}/${c.id}`)).status).toBe(204);
    expect((await call(t, reader.headers, 'GET', `${C}/${c.id}`)).status).toBe(404);
    expect((await call(t, reader.headers, 'DELETE', `${C}/${c.id}`)).status).toBe(404);
  });

  it('adds at a position, keeps series already there, and reorders', async () => {
    const c = await create(reader.headers, { name: 'Order', series_ids: ids('Alpha', 'Beta'), ordered: true });
    const added = await call<Collection>(t, reader.headers, 'POST', `${C}/${c.id}/series`, {
      series_ids: ids('Delta', 'Alpha'),
      position: 1,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.series_ids).toEqual(ids('Alpha', 'Delta', 'Beta'));
    const end = await call<Collection>(t, reader.headers, 'POST', `${C}/${c.id}/series`, { series_ids: ids('Gamma') });
    expect(end.body.series_ids).toEqual(ids('Alpha', 'Delta', 'Beta', 'Gamma'));
    const order = await call<Collection>(t, reader.headers, 'PUT', `${C}/${c.id}/series/order`, {
      series_ids: ids('Gamma', 'Beta', 'Alpha', 'Delta'),
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    expect(await seriesNames(reader.headers, c.id)).toEqual(['Gamma', 'Beta', 'Alpha', 'Delta']);

    const bad = async (series_ids: string[]) =>
      (await call<ErrorReply>(t, reader.headers, 'PUT', `${C}/${c.id}/series/order`, { series_ids })).body;
    expect(await bad(ids('Gamma', 'Beta', 'Alpha'))).toMatchObject({ error: 'BadRequest', details: { missing: ids('Delta') } });
    expect(await bad(ids('Gamma', 'Beta', 'Alpha', 'Delta', 'Delta'))).toMatchObject({ details: { repeated: ids('Delta') } });
    const stranger = await create(reader.headers, { name: 'Stranger' });
    expect(await bad([...ids('Gamma', 'Beta', 'Alpha', 'Delta'), stranger.id])).toMatchObject({ details: { series_ids: [stranger.id] } });
  });

  it('names are unique ignoring case among one owner’s collections, not across owners', async () => {
    await create(reader.headers, { name: 'Favourites' });
    const again = await call<ErrorReply>(t, reader.headers, 'POST', C, { name: '  FAVOURITES ' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Conflict');
    await create(otherReader.headers, { name: 'favourites' });
    const second = await create(reader.headers, { name: 'Second' });
    expect((await call(t, reader.headers, 'PATCH', `${C}/${second.id}`, { name: 'favourites' })).status).toBe(409);
    // Its own name in another case is no conflict.
    expect((await call<Collection>(t, reader.headers, 'PATCH', `${C}/${second.id}`, { name: 'SECOND' })).body.name).toBe('SECOND');
  });
});

describe('Shared collections', () => {
  it('a reader (or a maintainer) may not create, share, change or delete one; one granted collections-write/-delete may; everyone sees it', async () => {
    for (const headers of [reader.headers, plainMaintainer.headers]) {
      const refused = await call<ErrorReply>(t, headers, 'POST', C, { name: 'Everyone', shared: true });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: 'Forbidden', details: { required_permission: 'collections-write' } });
    }

    const shared = await create(maintainer.headers, { name: 'Staff Picks', shared: true, series_ids: ids('Alpha', 'Delta') });
    expect(shared).toMatchObject({ shared: true, owner_user_id: null, series_count: 2 });
    for (const headers of [reader.headers, otherReader.headers, t.headers])
      expect((await call<Collection>(t, headers, 'GET', `${C}/${shared.id}`)).body.series_ids).toEqual(ids('Alpha', 'Delta'));
    expect((await list(reader.headers, '&search=staff')).data.map((c) => c.name)).toEqual(['Staff Picks']);

    for (const [method, url, body] of [
      ['PATCH', `${C}/${shared.id}`, { summary: 'mine now' }],
      ['PATCH', `${C}/${shared.id}`, { shared: false }],
      ['POST', `${C}/${shared.id}/series`, { series_ids: ids('Beta') }],
      ['PUT', `${C}/${shared.id}/series/order`, { series_ids: ids('Delta', 'Alpha') }],
      ['DELETE', `${C}/${shared.id}/series/${S.Alpha}`],
      ['DELETE', `${C}/${shared.id}`],
    ] as const) {
      const res = await call<ErrorReply>(t, reader.headers, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.details).toEqual({
        required_permission: method === 'DELETE' && !url.includes('/series/') ? 'collections-delete' : 'collections-write',
      });
    }
    const own = await create(reader.headers, { name: 'Share me' });
    expect((await call(t, reader.headers, 'PATCH', `${C}/${own.id}`, { shared: true })).status).toBe(403);

    // Shared names are unique among the shared ones; a private one may have the same name.
    expect((await call(t, maintainer.headers, 'POST', C, { name: 'staff picks', shared: true })).status).toBe(409);
    await create(reader.headers, { name: 'Staff Picks' });
    const mine = await create(maintainer.headers, { name: 'Going public', series_ids: ids('Beta') });
    const published = await call<Collection>(t, maintainer.headers, 'PATCH', `${C}/${mine.id}`, { shared: true });
    expect(published.body).toMatchObject({ shared: true, owner_user_id: null });
    expect((await call(t, reader.headers, 'GET', `${C}/${mine.id}`)).status).toBe(200);
    const back = await call<Collection>(t, maintainer.headers, 'PATCH', `${C}/${mine.id}`, { shared: false });
    expect(back.body).toMatchObject({ shared: false, owner_user_id: maintainer.id });
    expect((await call(t, reader.headers, 'GET', `${C}/${mine.id}`)).status).toBe(404);

    expect((await call(t, maintainer.headers, 'DELETE', `${C}/${shared.id}`)).status).toBe(204);
    expect((await call(t, reader.headers, 'GET', `${C}/${shared.id}`)).status).toBe(404);
  });

  it('a person’s change of a collection made by scans marks it edited', async () => {
    const id = '0190a000-0000-7000-8000-0000000000c1';
    const now = nowIso();
    await t.database.db
      .insertInto('collections')
      .values({
        id,
        name: 'Arc',
        name_key: 'arc',
        summary: '',
        ordered: 1,
        owner_user_id: null,
        cover_series_id: null,
        source: 'comicinfo',
        edited: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect((await api<Collection>(t, 'GET', `${C}/${id}`)).body).toMatchObject({ source: 'comicinfo', edited: false, series_count: 0 });
    const res = await call<Collection>(t, maintainer.headers, 'POST', `${C}/${id}/series`, { series_ids: ids('Alpha') });
    expect(res.body).toMatchObject({ source: 'comicinfo', edited: true, series_ids: ids('Alpha') });
    expect((await call(t, maintainer.headers, 'DELETE', `${C}/${id}`)).status).toBe(204);
  });
});

describe('The household rules inside collections', () => {
  let mixed: Collection;
  let hiddenOnly: Collection;

  beforeAll(async () => {
    mixed = await create(maintainer.headers, {
      name: 'Mixed',
      shared: true,
      ordered: true,
      series_ids: ids('Gamma', 'Alpha', 'Delta'),
      summary: 'm',
    });
    hiddenOnly = await create(maintainer.headers, { name: 'Grown-ups only', shared: true, series_ids: ids('Gamma', 'Delta') });
    const cover = await call(t, maintainer.headers, 'PATCH', `${C}/${mixed.id}`, { cover_series_id: S.Gamma });
    expect(cover.status).toBe(200);
  });

  it('a restricted reader sees only its series, in counts, ids, covers and the series list', async () => {
    const seen = await call<Collection>(t, restricted.headers, 'GET', `${C}/${mixed.id}`);
    expect(seen.body).toMatchObject({ series_count: 1, series_ids: ids('Alpha'), cover_series_id: null, thumbnail_series_id: S.Alpha });
    expect(await seriesNames(restricted.headers, mixed.id)).toEqual(['Alpha']);
    expect((await call<Paged<unknown>>(t, restricted.headers, 'GET', `${C}/${mixed.id}/series`)).body.total).toBe(1);
    const listed = (await list(restricted.headers)).data.find((c) => c.id === mixed.id);
    expect(listed).toMatchObject({ series_count: 1, series_ids: ids('Alpha') });
    // The series/list condition collectionId: the collection's series the caller sees (isNot: the others).
    const byCondition = async (headers: Headers, operator: string) =>
      (
        await call<Paged<{ name: string }>>(t, headers, 'POST', '/api/v1/series/list?pageSize=50&sort=name,asc', {
          condition: { collectionId: { operator, value: mixed.id } },
        })
      ).body.data.map((s) => s.name);
    expect(await byCondition(restricted.headers, 'is')).toEqual(['Alpha']);
    expect(await byCondition(maintainer.headers, 'is')).toEqual(['Alpha', 'Delta', 'Gamma']);
    expect(await byCondition(maintainer.headers, 'isNot')).not.toContain('Alpha');
    // Everyone else sees it whole.
    expect((await call<Collection>(t, reader.headers, 'GET', `${C}/${mixed.id}`)).body).toMatchObject({
      series_count: 3,
      series_ids: ids('Gamma', 'Alpha', 'Delta'),
      cover_series_id: S.Gamma,
      thumbnail_series_id: S.Gamma,
    });
  });

  it('a collection of hidden series only is absent for it: lists, by id, its series, filters, reverse lookup', async () => {
    expect((await list(restricted.headers)).data.map((c) => c.id)).not.toContain(hiddenOnly.id);
    expect((await list(restricted.headers, '&search=grown')).total).toBe(0);
    for (const url of [`${C}/${hiddenOnly.id}`, `${C}/${hiddenOnly.id}/series`, `${C}/${hiddenOnly.id}/thumbnail`])
      expect((await call(t, restricted.headers, 'GET', url)).status, url).toBe(404);
    expect((await call(t, restrictedMaintainer.headers, 'DELETE', `${C}/${hiddenOnly.id}`)).status).toBe(404);
    // Hidden series are 404 in the reverse lookup, and the visible one does not lead to the hidden collection.
    expect((await call(t, restricted.headers, 'GET', `/api/v1/series/${S.Gamma}/collections`)).status).toBe(404);
    const ofAlpha = await call<Paged<Collection>>(t, restricted.headers, 'GET', `/api/v1/series/${S.Alpha}/collections`);
    expect(ofAlpha.body.data.map((c) => c.name)).toEqual(['Mixed']);
    // The library filter counts visible series only.
    const inB = (await list(reader.headers, `&library_id=${libB}`)).data.map((c) => c.name);
    expect(inB).toEqual(expect.arrayContaining(['Grown-ups only', 'Mixed']));
    expect(inB).not.toContain('Going public');
    expect((await list(restricted.headers, `&library_id=${libB}`)).total).toBe(0);
    expect((await list(restricted.headers, `&libraryId=${libA}`)).data.map((c) => c.name)).toEqual(['Mixed']);
    // Its own collection still shows when all its series become hidden.
    const own = await create(reader.headers, { name: 'Soon hidden', series_ids: ids('Gamma') });
    await restrict(reader);
    try {
      expect((await call<Collection>(t, reader.headers, 'GET', `${C}/${own.id}`)).body).toMatchObject({ series_count: 0, series_ids: [] });
    } finally {
      await api(t, 'PATCH', `/api/v1/users/${reader.id}`, { library_access: { all: true }, age_restriction: null });
    }
  });

  it('hidden series named in a request are refused like unknown ones', async () => {
    const unknown = '0190a000-0000-7000-8000-00000000dead';
    const res = await call<ErrorReply>(t, restricted.headers, 'POST', C, { name: 'Try', series_ids: [S.Alpha, S.Gamma, unknown] });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ series_ids: [S.Gamma, unknown] });
    expect(res.body.message).toContain(unknown);
    const cover = await call<ErrorReply>(t, restrictedMaintainer.headers, 'PATCH', `${C}/${mixed.id}`, { cover_series_id: S.Gamma });
    expect(cover.status).toBe(400);
    expect((await call(t, restrictedMaintainer.headers, 'DELETE', `${C}/${mixed.id}/series/${S.Gamma}`)).status).toBe(404);
  });

  it("a restricted maintainer's edits leave the series it cannot see in their places", async () => {
    const replaced = await call<Collection>(t, restrictedMaintainer.headers, 'PATCH', `${C}/${mixed.id}`, {
      series_ids: ids('Beta', 'Alpha'),
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.series_ids).toEqual(ids('Beta', 'Alpha'));
    // Gamma (first) and Delta (last) kept their places; the visible slot took Beta, Alpha came after.
    expect((await api<Collection>(t, 'GET', `${C}/${mixed.id}`)).body.series_ids).toEqual(ids('Gamma', 'Beta', 'Delta', 'Alpha'));
    const reordered = await call<Collection>(t, restrictedMaintainer.headers, 'PUT', `${C}/${mixed.id}/series/order`, {
      series_ids: ids('Alpha', 'Beta'),
    });
    expect(reordered.status, JSON.stringify(reordered.body)).toBe(200);
    expect((await api<Collection>(t, 'GET', `${C}/${mixed.id}`)).body.series_ids).toEqual(ids('Gamma', 'Alpha', 'Delta', 'Beta'));
    const added = await call<Collection>(t, restrictedMaintainer.headers, 'POST', `${C}/${mixed.id}/series`, { series_ids: [S.Alpha] });
    expect(added.body.series_ids).toEqual(ids('Alpha', 'Beta'));
    expect((await api<Collection>(t, 'GET', `${C}/${mixed.id}`)).body.cover_series_id).toBe(S.Gamma);
  });
});

describe('Bad requests', () => {
  it('are 400 with the error body naming the field', async () => {
    const c = await create(reader.headers, { name: 'Valid' });
    const cases: Array<[string, string, unknown]> = [
      ['POST', C, { name: '' }],
      ['POST', C, { name: '   ' }],
      ['POST', C, { series_ids: [] }],
      ['POST', C, { name: 'x', series_ids: ['not-a-uuid'] }],
      ['POST', C, { name: 'x', series_ids: 'nope' }],
      ['POST', C, { name: 'x', ordered: 'yes' }],
      ['POST', C, { name: 'x', colour: 'red' }],
      ['POST', C, { name: 'x'.repeat(201) }],
      ['PATCH', `${C}/${c.id}`, { name: null }],
      ['PATCH', `${C}/${c.id}`, { cover_series_id: 'nope' }],
      ['PATCH', `${C}/${c.id}`, { cover_series_id: S.Alpha }],
      ['POST', `${C}/${c.id}/series`, { series_ids: [] }],
      ['POST', `${C}/${c.id}/series`, { series_ids: [S.Alpha], position: -1 }],
      ['PUT', `${C}/${c.id}/series/order`, {}],
      ['GET', `${C}/not-a-uuid`, undefined],
      ['DELETE', `${C}/${c.id}/series/not-a-uuid`, undefined],
      ['GET', `${C}?library_id=nope`, undefined],
      ['GET', `/api/v1/series/nope/collections`, undefined],
    ];
    for (const [method, url, body] of cases) {
      const res = await call<ErrorReply>(t, reader.headers, method as 'GET', url, body);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toBe('BadRequest');
      expect(typeof res.body.message).toBe('string');
    }
    const missing = await call<ErrorReply>(t, reader.headers, 'POST', C, { series_ids: [] });
    expect(JSON.stringify(missing.body.details)).toContain('name');
    const unknownSeries = '0190a000-0000-7000-8000-0000000000aa';
    expect((await call(t, reader.headers, 'GET', `/api/v1/series/${unknownSeries}/collections`)).status).toBe(404);
    expect((await call(t, reader.headers, 'GET', `${C}/${unknownSeries}`)).status).toBe(404);
  });

  it('browsing and one’s own collections need series-read or collections-read; without either, 403 naming both', async () => {
    const keyOf = async (headers: Headers, permissions: string[]) => {
      const key = await call<{ key: string }>(t, headers, 'POST', '/api/v1/api-keys', { name: permissions.join(' '), permissions });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      return { 'x-api-key': key.body.key };
    };
    const books = await keyOf(reader.headers, ['books-read']);
    for (const [method, url] of [
      ['GET', C],
      ['POST', C],
    ] as const) {
      const res = await call<ErrorReply>(t, books, method, url, method === 'POST' ? { name: 'nope' } : undefined);
      expect(res.status).toBe(403);
      expect(res.body.details).toEqual({ required_permission: 'collections-read', any_of: ['collections-read', 'series-read'] });
    }
    // series-read alone: a reader's app key lists and makes its own; collections-read alone (granted, here an admin's key) too.
    for (const headers of [await keyOf(reader.headers, ['series-read']), await keyOf(t.headers, ['collections-read'])]) {
      expect((await call(t, headers, 'GET', C)).status).toBe(200);
      const own = await call<Collection>(t, headers, 'POST', C, { name: `Key's own ${Math.random()}`, series_ids: ids('Alpha') });
      expect(own.status).toBe(201);
      expect((await call(t, headers, 'DELETE', `${C}/${own.body.id}`)).status).toBe(204);
    }
  });
});
