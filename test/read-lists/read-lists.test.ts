import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scan, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { cbz, importCbl, klausCatalog, KLAUS_CBL, type KlausCatalog } from './helpers.js';

// Read lists through the native API on the engine under test: every route, permissions (own and shared lists),
// 404s, what a restricted reader sees inside lists, and CBL import (match report, missing and ambiguous entries,
// gaps filled by a later scan), export (export → import gives the same list) and bad files.

interface Item {
  id: string;
  position: number;
  book_id: string | null;
  book: { id: string; title: string } | null;
  wanted: { series: string; number: string | null; volume: string | null; cv_issue: string | null } | null;
}
interface ListView {
  id: string;
  name: string;
  summary: string;
  shared: boolean;
  source: string;
  edited: boolean;
  cover_book_id: string | null;
  book_count: number;
  missing_count: number;
}
interface Detail extends ListView {
  items: Item[];
}
interface EntryReport {
  index: number;
  series: string;
  number: string | null;
  status: 'matched' | 'ambiguous' | 'missing';
  book_id?: string;
  candidates?: Array<{ book_id: string; series_name: string }>;
}
interface Report {
  dry_run: boolean;
  name: string;
  matched: number;
  ambiguous: number;
  missing: number;
  entries: EntryReport[];
  read_list: Detail | null;
}

let t: CatalogTestApp;
let cat: KlausCatalog;
let reader: { id: string; headers: Headers };
let other: { id: string; headers: Headers };
/** Sees library A only. */
let restricted: { id: string; headers: Headers };
const id = (key: string) => {
  const found = cat.books[key];
  if (!found) throw new Error(`no book ${key} in ${Object.keys(cat.books).join(', ')}`);
  return found;
};
const K = (n: number) => id(`a:Klaus (2015)/Klaus ${String(n).padStart(3, '0')} (${n < 3 ? 2015 : 2016}).cbz`);
const B_KLAUS = () => id('b:Klaus (2020)/Klaus 001 (2020).cbz');
const SNOWMAN = () => id('a:Snowman/Snowman 1.cbz');
const XMAS = () => id('a:Klaus and the Crisis In Xmasville (2017)/Klaus and the Crisis in Xmasville 001 (2017).cbz');
const WITCH_A = () => id('a:Klaus and the Witch of Winter/Klaus and the Witch of Winter 001.cbz');
const WITCH_B = () => id('b:Klaus and the Witch of Winter/Klaus and the Witch of Winter 001.cbz');
const JOE = () => id('a:Klaus and the Life and Times of Joe Christmas (2019)/Klaus and the Life and Times of Joe Christmas 001 (2019).cbz');

const bookIdsOf = (d: Detail) => d.items.map((i) => i.book_id);

async function create(headers: Headers, body: Record<string, unknown>) {
  return call<Detail>(t, headers, 'POST', '/api/v1/read-lists', body);
}

beforeAll(async () => {
  t = await createCatalogApp();
  cat = await klausCatalog(t);
  reader = await createUser(t, 'reader');
  other = await createUser(t, 'reader');
  // Granted the shared lists' permission (no role but admin holds it: decision 040).
  restricted = await createUser(t, 'maintainer', ['read-lists-write']);
  const res = await api(t, 'PATCH', `/api/v1/users/${restricted.id}`, { library_access: { all: false, library_ids: [cat.a.id] } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});
afterAll(() => t.close());

describe('Creating, reading, changing and deleting', () => {
  it('a private list: books in order across series, cover, counts; listed, searched, paged', async () => {
    const res = await create(reader.headers, { name: 'Winter reading', book_ids: [XMAS(), K(1), SNOWMAN(), K(1)], summary: 'Cosy' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Winter reading',
      summary: 'Cosy',
      shared: false,
      source: 'user',
      edited: false,
      book_count: 3,
    });
    expect(bookIdsOf(res.body)).toEqual([XMAS(), K(1), SNOWMAN()]);
    expect(res.body.items.map((i) => i.position)).toEqual([0, 1, 2]);
    expect(res.body.items[1]!.book).toMatchObject({ id: K(1) });
    expect(res.body.cover_book_id).toBe(XMAS());

    const got = await call<Detail>(t, reader.headers, 'GET', `/api/v1/read-lists/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(bookIdsOf(got.body)).toEqual([XMAS(), K(1), SNOWMAN()]);

    await create(reader.headers, { name: 'Another one', book_ids: [] });
    const listed = await call<Paged<ListView>>(t, reader.headers, 'GET', '/api/v1/read-lists?pageSize=1');
    expect(listed.body).toMatchObject({ total: 2, totalPages: 2 });
    expect(listed.body.data.map((l) => l.name)).toEqual(['Another one']);
    const searched = await call<Paged<ListView>>(t, reader.headers, 'GET', '/api/v1/read-lists?search=WINTER');
    expect(searched.body.data.map((l) => l.name)).toEqual(['Winter reading']);
  });

  it('PATCH: name, summary, cover; 409 for a name taken ignoring case; another user’s private list is 404', async () => {
    const list = (await create(reader.headers, { name: 'Patch me', book_ids: [K(1), K(2)] })).body;
    const patched = await call<ListView>(t, reader.headers, 'PATCH', `/api/v1/read-lists/${list.id}`, {
      name: 'Patched',
      summary: 'New',
      cover_book_id: K(2),
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Patched', summary: 'New', cover_book_id: K(2) });
    expect((await call(t, reader.headers, 'PATCH', `/api/v1/read-lists/${list.id}`, { cover_book_id: SNOWMAN() })).status).toBe(400);
    const taken = await call(t, reader.headers, 'PATCH', `/api/v1/read-lists/${list.id}`, { name: 'WINTER READING' });
    expect(taken.status).toBe(409);
    expect((await create(reader.headers, { name: 'patched', book_ids: [] })).status).toBe(409);
    // Names are per owner: another user may use it.
    expect((await create(other.headers, { name: 'Patched', book_ids: [] })).status).toBe(201);

    for (const [method, url, body] of [
      ['GET', `/api/v1/read-lists/${list.id}`, undefined],
      ['PATCH', `/api/v1/read-lists/${list.id}`, { name: 'Mine now' }],
      ['DELETE', `/api/v1/read-lists/${list.id}`, undefined],
      ['GET', `/api/v1/read-lists/${list.id}/progress`, undefined],
      ['GET', `/api/v1/read-lists/${list.id}/cbl`, undefined],
      ['POST', `/api/v1/read-lists/${list.id}/books`, { book_ids: [K(4)] }],
    ] as const) {
      expect((await call(t, other.headers, method, url, body)).status, `${method} ${url}`).toBe(404);
      // Not even an administrator sees a user's private list.
      expect((await call(t, t.headers, method, url, body)).status, `admin ${method} ${url}`).toBe(404);
    }
    const others = await call<Paged<ListView>>(t, other.headers, 'GET', '/api/v1/read-lists');
    expect(others.body.data.map((l) => l.id)).not.toContain(list.id);
  });

  it('books: add at a position, ignore ones already there, remove, reorder; unknown books are 400, absent ones 404', async () => {
    const list = (await create(reader.headers, { name: 'Editing', book_ids: [K(1), K(2)] })).body;
    const url = `/api/v1/read-lists/${list.id}`;
    const added = await call<Detail>(t, reader.headers, 'POST', `${url}/books`, { book_ids: [K(4), K(1)], position: 1 });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(bookIdsOf(added.body)).toEqual([K(1), K(4), K(2)]);
    const atEnd = await call<Detail>(t, reader.headers, 'POST', `${url}/books`, { book_ids: [K(5)] });
    expect(bookIdsOf(atEnd.body)).toEqual([K(1), K(4), K(2), K(5)]);

    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = await call<{ details: { book_ids: string[] } }>(t, reader.headers, 'POST', `${url}/books`, { book_ids: [unknown] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.book_ids).toEqual([unknown]);

    const ordered = await call<Detail>(t, reader.headers, 'PUT', `${url}/books/order`, { book_ids: [K(5), K(2), K(4), K(1)] });
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(200);
    expect(bookIdsOf(ordered.body)).toEqual([K(5), K(2), K(4), K(1)]);
    expect((await call(t, reader.headers, 'PUT', `${url}/books/order`, { book_ids: [K(5), K(2)] })).status).toBe(400);
    expect((await call(t, reader.headers, 'PUT', `${url}/books/order`, { book_ids: [K(5), K(2), K(4), K(1), K(1)] })).status).toBe(400);

    expect((await call(t, reader.headers, 'DELETE', `${url}/books/${K(2)}`)).status).toBe(204);
    expect((await call(t, reader.headers, 'DELETE', `${url}/books/${K(2)}`)).status).toBe(404);
    expect((await call(t, reader.headers, 'DELETE', `${url}/books/${unknown}`)).status).toBe(404);
    expect(bookIdsOf((await call<Detail>(t, reader.headers, 'GET', url)).body)).toEqual([K(5), K(4), K(1)]);

    expect((await call(t, reader.headers, 'DELETE', url)).status).toBe(204);
    expect((await call(t, reader.headers, 'GET', url)).status).toBe(404);
    expect((await call(t, reader.headers, 'DELETE', url)).status).toBe(404);
  });

  it('progress: read, in progress, unread and the next book, for the caller', async () => {
    const list = (await create(reader.headers, { name: 'Progress', book_ids: [K(1), K(2), K(4), K(5)] })).body;
    expect((await call(t, reader.headers, 'POST', `/api/v1/books/${K(1)}/read`)).status).toBe(200);
    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${K(4)}/progress`, { current_page: 1 })).status).toBe(200);
    const progress = await call<Record<string, unknown>>(t, reader.headers, 'GET', `/api/v1/read-lists/${list.id}/progress`);
    expect(progress.status).toBe(200);
    expect(progress.body).toMatchObject({ total: 4, read: 1, in_progress: 1, unread: 2, next_book_id: K(2), next_book: { id: K(2) } });
  });

  it('reverse lookup: the lists holding a book, as the caller sees them', async () => {
    const res = await call<Paged<ListView>>(t, reader.headers, 'GET', `/api/v1/books/${SNOWMAN()}/read-lists`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((l) => l.name)).toEqual(['Winter reading']);
    expect((await call<Paged<ListView>>(t, other.headers, 'GET', `/api/v1/books/${SNOWMAN()}/read-lists`)).body.total).toBe(0);
    expect((await call(t, reader.headers, 'GET', '/api/v1/books/00000000-0000-4000-8000-000000000000/read-lists')).status).toBe(404);
  });

  it('a scan-made list a person changes is marked edited', async () => {
    const list = (await create(t.headers, { name: 'Story arc', book_ids: [K(1)], shared: true })).body;
    await t.database.db.updateTable('read_lists').set({ source: 'comicinfo' }).where('id', '=', list.id).execute();
    const res = await call<ListView>(t, t.headers, 'PATCH', `/api/v1/read-lists/${list.id}`, { summary: 'Edited by hand' });
    expect(res.body).toMatchObject({ source: 'comicinfo', edited: true });
  });
});

describe('Permissions', () => {
  it('shared lists need read-lists-write to create, change, share and unshare, read-lists-delete to delete; readers see them', async () => {
    for (const headers of [reader.headers, (await createUser(t, 'maintainer')).headers]) {
      const refused = await create(headers, { name: 'Household', book_ids: [K(1)], shared: true });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: 'Forbidden', details: { required_permission: 'read-lists-write' } });
    }

    const shared = await create(t.headers, { name: 'Household', book_ids: [K(1), K(2)], shared: true });
    expect(shared.status).toBe(201);
    const url = `/api/v1/read-lists/${shared.body.id}`;
    expect((await call<Detail>(t, reader.headers, 'GET', url)).body).toMatchObject({ shared: true, book_count: 2 });
    for (const [method, u, body, permission] of [
      ['PATCH', url, { name: 'Mine' }, 'read-lists-write'],
      ['DELETE', url, undefined, 'read-lists-delete'],
      ['POST', `${url}/books`, { book_ids: [K(4)] }, 'read-lists-write'],
      ['PUT', `${url}/books/order`, { book_ids: [K(2), K(1)] }, 'read-lists-write'],
      ['DELETE', `${url}/books/${K(1)}`, undefined, 'read-lists-write'],
    ] as const) {
      const res = await call<{ details: unknown }>(t, reader.headers, method, u, body);
      expect(res.status, `${method} ${u}`).toBe(403);
      expect(res.body.details).toEqual({ required_permission: permission });
    }
    // A shared name is taken among shared lists only.
    expect((await create(t.headers, { name: 'HOUSEHOLD', book_ids: [], shared: true })).status).toBe(409);
    expect((await create(reader.headers, { name: 'Household', book_ids: [] })).status).toBe(201);

    const mine = (await create(reader.headers, { name: 'To share', book_ids: [K(1)] })).body;
    expect((await call(t, reader.headers, 'PATCH', `/api/v1/read-lists/${mine.id}`, { shared: true })).status).toBe(403);
    // A reader an administrator granted read-lists-write shares its own list.
    const sharer = await createUser(t, 'reader', ['read-lists-write']);
    const own = (await create(sharer.headers, { name: 'Shared later', book_ids: [K(1)] })).body;
    const sharedNow = await call<ListView>(t, sharer.headers, 'PATCH', `/api/v1/read-lists/${own.id}`, { shared: true });
    expect(sharedNow.body.shared).toBe(true);
    expect((await call(t, other.headers, 'GET', `/api/v1/read-lists/${own.id}`)).status).toBe(200);
    const unshared = await call<ListView>(t, t.headers, 'PATCH', `/api/v1/read-lists/${own.id}`, { shared: false });
    expect(unshared.body.shared).toBe(false);
    // Unsharing made it the administrator's own private list.
    expect((await call(t, sharer.headers, 'GET', `/api/v1/read-lists/${own.id}`)).status).toBe(404);
    expect((await call(t, t.headers, 'DELETE', `/api/v1/read-lists/${own.id}`)).status).toBe(204);
  });

  it('the route permissions: books-read or read-lists-read to see and to change one’s own lists', async () => {
    const list = (await create(reader.headers, { name: 'Keys', book_ids: [K(1)] })).body;
    const key = await createApiKey(t, reader.headers, { name: 'no lists', permissions: ['libraries-read', 'series-read'] });
    const headers = { 'x-api-key': key.key };
    for (const [method, url, body] of [
      ['GET', '/api/v1/read-lists', undefined],
      ['GET', `/api/v1/read-lists/${list.id}`, undefined],
      ['POST', '/api/v1/read-lists', { name: 'x', book_ids: [] }],
      ['PATCH', `/api/v1/read-lists/${list.id}`, { name: 'y' }],
      ['DELETE', `/api/v1/read-lists/${list.id}`, undefined],
    ] as const) {
      const res = await call<{ details: unknown }>(t, headers, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.details).toEqual({ required_permission: 'read-lists-read', any_of: ['read-lists-read', 'books-read'] });
    }
    // books-read alone (a reader's key), or read-lists-read alone (granted, here an administrator's key): see, make, delete its own.
    const keys = [
      await createApiKey(t, reader.headers, { name: 'books only', permissions: ['books-read'] }),
      await createApiKey(t, t.headers, { name: 'lists only', permissions: ['read-lists-read'] }),
    ];
    for (const k of keys) {
      const h = { 'x-api-key': k.key };
      expect((await call(t, h, 'GET', `/api/v1/read-lists/${list.id}`)).status).toBe(k === keys[0] ? 200 : 404);
      const own = await create(h, { name: `Own ${k.id}`, book_ids: [K(1)] });
      expect(own.status).toBe(201);
      expect((await call(t, h, 'PATCH', `/api/v1/read-lists/${own.body.id}`, { summary: 'mine' })).status).toBe(200);
      expect((await call(t, h, 'DELETE', `/api/v1/read-lists/${own.body.id}`)).status).toBe(204);
    }
  });
});

describe('Access rules inside lists', () => {
  it('a restricted user sees only its books in a shared list, counts only those, and not a list with none', async () => {
    const mixed = (await create(t.headers, { name: 'Mixed', book_ids: [B_KLAUS(), K(1), WITCH_B(), K(2)], shared: true })).body;
    const onlyB = (await create(t.headers, { name: 'Only B', book_ids: [B_KLAUS()], shared: true })).body;
    const url = `/api/v1/read-lists/${mixed.id}`;
    const seen = await call<Detail>(t, restricted.headers, 'GET', url);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ book_count: 2, cover_book_id: K(1) });
    expect(bookIdsOf(seen.body)).toEqual([K(1), K(2)]);
    expect(JSON.stringify(seen.body)).not.toContain(B_KLAUS());
    expect((await call<Detail>(t, t.headers, 'GET', url)).body.book_count).toBe(4);
    // The books/list condition readListId: the list's books the caller sees.
    const byCondition = async (headers: Record<string, string>) =>
      (
        await call<Paged<{ id: string }>>(t, headers, 'POST', '/api/v1/books/list?pageSize=50', {
          condition: { readListId: { operator: 'is', value: mixed.id } },
        })
      ).body.data
        .map((b) => b.id)
        .sort();
    expect(await byCondition(restricted.headers)).toEqual([K(1), K(2)].sort());
    expect(await byCondition(t.headers)).toEqual([B_KLAUS(), K(1), WITCH_B(), K(2)].sort());

    const listed = await call<Paged<ListView>>(t, restricted.headers, 'GET', '/api/v1/read-lists?pageSize=500');
    expect(listed.body.data.map((l) => l.name)).toContain('Mixed');
    expect(listed.body.data.map((l) => l.name)).not.toContain('Only B');
    expect(listed.body.data.find((l) => l.name === 'Mixed')?.book_count).toBe(2);
    for (const u of [`/api/v1/read-lists/${onlyB.id}`, `/api/v1/read-lists/${onlyB.id}/cbl`, `/api/v1/read-lists/${onlyB.id}/progress`])
      expect((await call(t, restricted.headers, 'GET', u)).status, u).toBe(404);
    expect((await call(t, restricted.headers, 'GET', `/api/v1/books/${B_KLAUS()}/read-lists`)).status).toBe(404);

    expect((await call<Record<string, number>>(t, restricted.headers, 'GET', `${url}/progress`)).body.total).toBe(2);
    const cbl = await t.app.inject({ method: 'GET', url: `${url}/cbl`, headers: restricted.headers });
    expect(cbl.body.match(/<Book /g)).toHaveLength(2);
    expect(cbl.body).not.toContain('2020');

    // Reordering what it sees leaves the hidden books where they were.
    const ordered = await call<Detail>(t, restricted.headers, 'PUT', `${url}/books/order`, { book_ids: [K(2), K(1)] });
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(200);
    expect(bookIdsOf((await call<Detail>(t, t.headers, 'GET', url)).body)).toEqual([B_KLAUS(), K(2), WITCH_B(), K(1)]);
    // It cannot add or name a book it does not see.
    expect((await call(t, restricted.headers, 'POST', `${url}/books`, { book_ids: [B_KLAUS()] })).status).toBe(400);
    expect((await call(t, restricted.headers, 'DELETE', `${url}/books/${B_KLAUS()}`)).status).toBe(404);
  });

  it('a restricted maker of a shared list with none of its books gets it empty; its peers do not see it', async () => {
    const made = await create(restricted.headers, { name: 'Empty shared', book_ids: [], shared: true });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ shared: true, book_count: 0, items: [] });
    expect((await call(t, restricted.headers, 'GET', `/api/v1/read-lists/${made.body.id}`)).status).toBe(404);
    expect((await call(t, t.headers, 'GET', `/api/v1/read-lists/${made.body.id}`)).status).toBe(200);
  });
});

describe('CBL import and export', () => {
  let imported: Report;

  it('a dry run reports each entry: matched by name, start year, number and ComicVine id; one missing, one ambiguous', async () => {
    const res = await importCbl<Report>(t, t.headers, { dry_run: 'true' }, { data: KLAUS_CBL, name: '[Boom!] Klaus.cbl' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body;
    expect(r).toMatchObject({ dry_run: true, name: '[Boom!] Klaus', matched: 9, ambiguous: 1, missing: 1, read_list: null });
    const by = (i: number) => r.entries[i]!;
    expect([0, 1, 3, 4, 5, 6].map((i) => by(i).book_id)).toEqual([K(1), K(2), K(4), K(5), K(6), K(7)]);
    expect(by(2)).toMatchObject({ series: 'Klaus', number: '3', status: 'missing' });
    expect(by(7).status).toBe('ambiguous');
    expect(
      by(7)
        .candidates?.map((c) => c.book_id)
        .sort(),
    ).toEqual([WITCH_A(), WITCH_B()].sort());
    expect(by(8)).toMatchObject({ status: 'matched', book_id: XMAS() });
    expect(by(9)).toMatchObject({ status: 'matched', book_id: SNOWMAN() });
    expect(by(10)).toMatchObject({ series: 'Klaus and the Life & Times of Joe Christmas', status: 'matched', book_id: JOE() });
    expect((await call<Paged<ListView>>(t, t.headers, 'GET', '/api/v1/read-lists?search=boom')).body.total).toBe(0);
  });

  it('a restricted user’s import sees only its books: nothing is ambiguous with a hidden copy', async () => {
    const res = await importCbl<Report>(t, restricted.headers, {}, { data: KLAUS_CBL }, '?dry_run=1');
    expect(res.body).toMatchObject({ matched: 10, ambiguous: 0, missing: 1 });
    expect(res.body.entries[7]).toMatchObject({ status: 'matched', book_id: WITCH_A() });
    expect(JSON.stringify(res.body)).not.toContain(WITCH_B());
  });

  it('an import creates the list with every entry; missing and ambiguous ones wait for a book', async () => {
    const res = await importCbl<Report>(t, t.headers, { shared: 'true', summary: 'Christmas' }, { data: KLAUS_CBL });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    imported = res.body;
    const list = imported.read_list!;
    expect(list).toMatchObject({ name: '[Boom!] Klaus', summary: 'Christmas', shared: true, book_count: 9, missing_count: 2 });
    expect(list.items).toHaveLength(11);
    expect(list.items[2]).toMatchObject({ book_id: null, book: null, wanted: { series: 'Klaus', number: '3', volume: '2015' } });
    expect(list.items[7]).toMatchObject({ book_id: null, wanted: { series: 'Klaus and the Witch of Winter' } });
    // A restricted user sees the books it may see, and no entry waiting for a book in a shared list.
    const seen = (await call<Detail>(t, restricted.headers, 'GET', `/api/v1/read-lists/${list.id}`)).body;
    expect(seen).toMatchObject({ book_count: 9, missing_count: 0 });
    expect(seen.items.every((i) => i.book_id !== null)).toBe(true);
    // The same name again is a conflict; a dry run or another name is not.
    expect((await importCbl(t, t.headers, { shared: 'true' }, { data: KLAUS_CBL })).status).toBe(409);
  });

  it('resolutions choose books for entries at import; PATCH .../items/{item_id} sets one afterwards', async () => {
    const res = await importCbl<Report>(
      t,
      reader.headers,
      { name: 'Resolved', resolutions: JSON.stringify({ 7: WITCH_B() }) },
      { data: KLAUS_CBL },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.entries[7]).toMatchObject({ status: 'matched', book_id: WITCH_B(), resolved: true });
    expect(res.body.read_list!.items[7]!.book_id).toBe(WITCH_B());

    const list = imported.read_list!;
    const item = list.items[7]!;
    const url = `/api/v1/read-lists/${list.id}/items/${item.id}`;
    const set = await call<Detail>(t, t.headers, 'PATCH', url, { book_id: WITCH_A() });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.items[7]).toMatchObject({ book_id: WITCH_A(), wanted: { series: 'Klaus and the Witch of Winter' } });
    expect(set.body.missing_count).toBe(1);
    expect((await call(t, t.headers, 'PATCH', url, { book_id: K(1) })).status).toBe(409);
    expect((await call(t, t.headers, 'PATCH', `/api/v1/read-lists/${list.id}/items/${list.id}`, { book_id: K(1) })).status).toBe(404);
  });

  it('a scan that adds the missing book fills the gap', async () => {
    await cbz(cat.a.dir, 'Klaus (2015)', 'Klaus 003 (2016).cbz');
    await scan(t, cat.a.id);
    const url = `/api/v1/read-lists/${imported.read_list!.id}`;
    let list = (await call<Detail>(t, t.headers, 'GET', url)).body;
    for (let i = 0; i < 100 && list.missing_count > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      list = (await call<Detail>(t, t.headers, 'GET', url)).body;
    }
    expect(list).toMatchObject({ missing_count: 0, book_count: 11 });
    const k3 = (await call<Paged<{ id: string; path: string }>>(t, t.headers, 'GET', `/api/v1/books?pageSize=500`)).body.data.find(
      (b) => b.path === 'Klaus (2015)/Klaus 003 (2016).cbz',
    )!.id;
    expect(list.items[2]).toMatchObject({ book_id: k3, wanted: { number: '3' } });
  });

  it('export → import gives the same list', async () => {
    const made = (await create(t.headers, { name: 'Round trip', book_ids: [JOE(), K(2), SNOWMAN(), B_KLAUS(), XMAS(), K(1)] })).body;
    const exported = await t.app.inject({ method: 'GET', url: `/api/v1/read-lists/${made.id}/cbl`, headers: t.headers });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('application/xml');
    expect(exported.headers['content-disposition']).toContain('attachment; filename="Round trip.cbl"');
    expect(exported.body).toContain('Issue="695563"');
    const again = await importCbl<Report>(t, t.headers, { name: 'Round trip again' }, { data: exported.body, name: 'Round trip.cbl' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body).toMatchObject({ matched: 6, ambiguous: 0, missing: 0 });
    expect(bookIdsOf(again.body.read_list!)).toEqual(bookIdsOf(made));

    // An imported list exports its entries as they came: the same file, and the same books again.
    const klaus = await t.app.inject({ method: 'GET', url: `/api/v1/read-lists/${imported.read_list!.id}/cbl`, headers: t.headers });
    expect(klaus.headers['content-disposition']).toContain('[Boom!] Klaus.cbl');
    const reimported = await importCbl<Report>(t, t.headers, { dry_run: 'true' }, { data: klaus.body });
    const original = (await call<Detail>(t, t.headers, 'GET', `/api/v1/read-lists/${imported.read_list!.id}`)).body;
    expect(reimported.body.entries.map((e) => e.book_id ?? null)).toEqual(bookIdsOf(original).map((b, i) => (i === 7 ? null : b)));
  });

  it('bad uploads are 400 with a clear message', async () => {
    const cases: Array<[string, { status: number; body: Record<string, unknown> }, RegExp]> = [
      ['not XML', await importCbl(t, t.headers, {}, { data: 'just some text' }), /not well-formed|not a ComicRack reading list/],
      [
        'a ComicInfo.xml',
        await importCbl(t, t.headers, {}, { data: '<ComicInfo><Series>X</Series></ComicInfo>' }),
        /root element is <ComicInfo>/,
      ],
      ['no books', await importCbl(t, t.headers, {}, { data: '<ReadingList><Name>x</Name><Books/></ReadingList>' }), /no <Book> entries/],
      ['an empty file', await importCbl(t, t.headers, {}, { data: '' }), /empty/],
      ['no file', await importCbl(t, t.headers, { name: 'x' }), /field "file"/],
      ['the file in another field', await importCbl(t, t.headers, {}, { data: KLAUS_CBL, field: 'upload' }), /field "file"/],
      ['bad resolutions', await importCbl(t, t.headers, { resolutions: '{7:' }, { data: KLAUS_CBL }), /resolutions must be JSON/],
      [
        'a resolution past the end',
        await importCbl(t, t.headers, { resolutions: JSON.stringify({ 99: K(1) }) }, { data: KLAUS_CBL }),
        /resolutions name entry 99/,
      ],
    ];
    for (const [what, res, message] of cases) {
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ error: 'BadRequest' });
      expect(String(res.body.message), what).toMatch(message);
    }
    const json = await call<{ message: string }>(t, t.headers, 'POST', '/api/v1/read-lists/import', { file: 'x' });
    expect(json.status).toBe(400);
    expect(json.body.message).toMatch(/multipart\/form-data/);
    // A reader cannot import a shared list.
    expect((await importCbl(t, reader.headers, { shared: 'true', name: 'S' }, { data: KLAUS_CBL })).status).toBe(403);
  });
});

describe('Deleting a book', () => {
  it('a list keeps working when a book file disappears', async () => {
    const list = (await create(t.headers, { name: 'Fragile', book_ids: [K(1), K(5)] })).body;
    await rm(path.join(cat.a.dir, 'Klaus (2015)', 'Klaus 005 (2016).cbz'));
    await scan(t, cat.a.id);
    const got = await call<Detail>(t, t.headers, 'GET', `/api/v1/read-lists/${list.id}`);
    expect(got.body).toMatchObject({ book_count: 1 });
    expect(bookIdsOf(got.body)).toEqual([K(1)]);
  });
});
