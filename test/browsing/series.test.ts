import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlitePathFor } from '../../src/db/connection.js';
import { makeCbz } from '../media/fixtures.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { createUser } from '../helpers/auth.js';
import { testDatabaseType } from '../helpers/config.js';
import { writeCorpus } from './corpus.js';

interface Series {
  id: string;
  library_id: string;
  name: string;
  path: string;
  book_count: number;
  books_read_count: number;
  books_unread_count: number;
  books_in_progress_count: number;
  file_size: number;
  page_count: number;
  metadata: {
    title: string;
    summary: string | null;
    publisher: string | null;
    genres: string[];
    tags: string[];
    status: string | null;
    language: string | null;
    year: number | null;
  };
  created_at: string;
  updated_at: string;
}
interface Book {
  id: string;
  series_id: string;
  title: string;
  number: string | null;
}

let t: CatalogTestApp;
let lib: string;
let other: string;
let all: Series[];
const byName = (name: string) => all.find((s) => s.name === name)!;
const names = (list: { name: string }[]) => list.map((s) => s.name);

async function seriesList(url: string): Promise<Series[]> {
  const res = await api<Paged<Series>>(t, 'GET', url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
async function filter(body: unknown, query = ''): Promise<{ status: number; body: Paged<Series> & { error?: string; message?: string } }> {
  return api(t, 'POST', `/api/v1/series/list${query}`, body);
}

beforeAll(async () => {
  t = await createCatalogApp();
  lib = (await scannedLibrary(t, writeCorpus)).id;
  other = (
    await scannedLibrary(t, (dir) =>
      makeCbz(`${dir}/Zorro`, 'Zorro 001.cbz', {
        pages: 2,
        pageSize: { width: 60, height: 90 },
        comicInfo: { Series: 'Zorro', Genre: 'Adventure', LanguageISO: 'es' },
      }).then(() => undefined),
    )
  ).id;
  // Reading state of the admin: Calvin read, Batman #1 read (so Batman is in progress), Dragon Ball #2 started.
  const books = (await api<Paged<Book & { series_id: string }>>(t, 'GET', '/api/v1/books?pageSize=500&sort=number')).body.data;
  all = await seriesList('/api/v1/series?pageSize=500');
  const first = (series: string, n = 1) => books.find((b) => b.series_id === byName(series).id && b.number === String(n))!;
  expect((await api(t, 'POST', `/api/v1/books/${first('Calvin and Hobbes').id}/read`)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 5));
  expect((await api(t, 'POST', `/api/v1/books/${first('Batman').id}/read`)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 5));
  expect((await api(t, 'PUT', `/api/v1/books/${first('Dragon Ball', 2).id}/progress`, { current_page: 1 })).status).toBe(200);
  all = await seriesList('/api/v1/series?pageSize=500');
});
afterAll(() => t.close());

describe('GET /series', () => {
  it('lists present series with counts for the caller and metadata from ComicInfo', async () => {
    expect(names(all)).toEqual(['Astérix', 'Batman', 'Broken', 'Calvin and Hobbes', 'Dragon Ball', 'Zorro', 'Éclair']);
    const asterix = byName('Astérix');
    expect(asterix).toMatchObject({
      library_id: lib,
      book_count: 3,
      books_read_count: 0,
      books_unread_count: 3,
      books_in_progress_count: 0,
      path: 'Astérix',
    });
    expect(asterix.metadata).toMatchObject({
      title: 'Astérix',
      publisher: 'Dargaud',
      genres: ['Adventure', 'Humor'],
      tags: ['classic'],
      status: 'Ended',
      language: 'fr',
      year: 1961,
    });
    expect(byName('Batman')).toMatchObject({ books_read_count: 1, books_unread_count: 1, books_in_progress_count: 0 });
    expect(byName('Dragon Ball')).toMatchObject({ books_read_count: 0, books_in_progress_count: 1, books_unread_count: 2 });
    expect(byName('Calvin and Hobbes')).toMatchObject({ books_read_count: 1, books_unread_count: 0 });
  });

  it('library_id (and libraryId) restrict the list', async () => {
    expect(names(await seriesList(`/api/v1/series?library_id=${other}`))).toEqual(['Zorro']);
    expect(names(await seriesList(`/api/v1/series?libraryId=${other}`))).toEqual(['Zorro']);
    expect((await seriesList(`/api/v1/series?library_id=${lib}&pageSize=500`)).length).toBe(all.length - 1);
  });

  const key: Record<string, (s: Series) => string | number | null> = {
    name: (s) => s.name.toLowerCase(),
    date_added: (s) => s.created_at,
    date_updated: (s) => s.updated_at,
    release_date: (s) => s.metadata.year,
    book_count: (s) => s.book_count,
    file_size: (s) => s.file_size,
    filename: (s) => s.path,
    page_count: (s) => s.page_count,
  };
  for (const [field, value] of Object.entries(key)) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sort=${field},${direction}`, async () => {
        const list = await seriesList(`/api/v1/series?pageSize=500&sort=${field},${direction}`);
        expect(list.length).toBe(all.length);
        const values = list.map(value);
        const present = values.filter((v) => v !== null);
        // nulls last in both directions
        expect(values.slice(present.length).every((v) => v === null)).toBe(true);
        const sorted = [...present].sort((a, b) => (a! < b! ? -1 : a! > b! ? 1 : 0));
        expect(present).toEqual(direction === 'asc' ? sorted : sorted.reverse());
      });
    }
  }

  it("sort=date_read orders by the caller's latest reading, unread series last, both directions", async () => {
    expect(names(await seriesList('/api/v1/series?pageSize=500&sort=date_read,desc')).slice(0, 3)).toEqual([
      'Dragon Ball',
      'Batman',
      'Calvin and Hobbes',
    ]);
    expect(names(await seriesList('/api/v1/series?pageSize=500&sort=date_read,asc')).slice(0, 3)).toEqual([
      'Calvin and Hobbes',
      'Batman',
      'Dragon Ball',
    ]);
  });

  it('an unknown sort field or direction is a 400 naming it', async () => {
    const res = await api<{ error: string; message: string }>(t, 'GET', '/api/v1/series?sort=colour,asc');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('colour');
    expect((await api(t, 'GET', '/api/v1/series?sort=name,up')).status).toBe(400);
  });
});

describe('Pagination', () => {
  it('first page has next and no prev; last page has prev and no next; beyond the end is empty', async () => {
    const first = await api<Paged<Series>>(t, 'GET', '/api/v1/series?pageSize=3');
    expect(first.body).toMatchObject({ page: 1, pageSize: 3, total: 7, totalPages: 3 });
    expect(first.body.links.next).toBe('/api/v1/series?page=2&pageSize=3');
    expect(first.body.links.prev).toBeUndefined();
    const last = await api<Paged<Series>>(t, 'GET', '/api/v1/series?pageSize=3&page=3');
    expect(last.body.data.length).toBe(1);
    expect(last.body.links.next).toBeUndefined();
    expect(last.body.links.prev).toBe('/api/v1/series?page=2&pageSize=3');
    const beyond = await api<Paged<Series>>(t, 'GET', '/api/v1/series?pageSize=3&page=9');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.total).toBe(7);
    const pages = [first.body.data, (await api<Paged<Series>>(t, 'GET', first.body.links.next!)).body.data, last.body.data].flat();
    expect(names(pages)).toEqual(names(all));
  });

  it('page_size is an alias, pageSize wins, values above 500 are capped, 0 is a 400', async () => {
    expect((await api<Paged<Series>>(t, 'GET', '/api/v1/series?page_size=2')).body.pageSize).toBe(2);
    expect((await api<Paged<Series>>(t, 'GET', '/api/v1/series?page_size=2&pageSize=4')).body.pageSize).toBe(4);
    expect((await api<Paged<Series>>(t, 'GET', '/api/v1/series?pageSize=9000')).body.pageSize).toBe(500);
    expect((await api(t, 'GET', '/api/v1/series?pageSize=0')).status).toBe(400);
  });

  it('POST lists read pagination and sort from the query string', async () => {
    const res = await filter({ condition: { language: { operator: 'is', value: 'en' } } }, '?pageSize=1&page=2&sort=name,desc');
    expect(res.body).toMatchObject({ page: 2, pageSize: 1, total: 2 });
    expect(names(res.body.data)).toEqual(['Batman']);
    expect(res.body.links.prev).toBe('/api/v1/series/list?sort=name%2Cdesc&page=1&pageSize=1');
  });
});

describe('POST /series/list: the condition tree', () => {
  const lower = (v: string | null) => (v ?? '').toLowerCase();
  const text = (get: (s: Series) => string | null) => (op: string, v: string) => (s: Series) => {
    const x = get(s);
    switch (op) {
      case 'is':
        return x !== null && lower(x) === lower(v);
      case 'isNot':
        return x === null || lower(x) !== lower(v);
      case 'contains':
        return x !== null && lower(x).includes(lower(v));
      case 'beginsWith':
        return x !== null && lower(x).startsWith(lower(v));
      case 'isNull':
        return !x;
      default:
        return !!x;
    }
  };
  const list = (get: (s: Series) => string[]) => (op: string, v: string) => (s: Series) => {
    const xs = get(s).map(lower);
    switch (op) {
      case 'is':
        return xs.includes(lower(v));
      case 'isNot':
        return !xs.includes(lower(v));
      case 'contains':
        return xs.some((x) => x.includes(lower(v)));
      case 'beginsWith':
        return xs.some((x) => x.startsWith(lower(v)));
      case 'isNull':
        return xs.length === 0;
      default:
        return xs.length > 0;
    }
  };
  const status = (s: Series) =>
    s.books_read_count === 0 && s.books_in_progress_count === 0
      ? 'unread'
      : s.book_count > 0 && s.books_read_count >= s.book_count
        ? 'read'
        : 'in_progress';
  const fields: Record<string, { ops: string[]; values: string[]; test: (op: string, v: string) => (s: Series) => boolean }> = {
    libraryId: { ops: ['is', 'isNot'], values: [], test: (op, v) => (s) => (op === 'is' ? s.library_id === v : s.library_id !== v) },
    genre: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['action', 'art', 'Hum'],
      test: list((s) => s.metadata.genres),
    },
    tag: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['classic', 'ark', 'man'],
      test: list((s) => s.metadata.tags),
    },
    status: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['ended', 'going', 'On'],
      test: text((s) => s.metadata.status),
    },
    publisher: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['dc comics', 'mc', 'Sh'],
      test: text((s) => s.metadata.publisher),
    },
    language: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['en', 'r', 'j'],
      test: text((s) => s.metadata.language),
    },
    name: {
      ops: ['is', 'isNot', 'contains', 'beginsWith', 'isNull', 'isNotNull'],
      values: ['batman', 'and', 'dra'],
      test: text((s) => s.name),
    },
    readStatus: {
      ops: ['is', 'isNot'],
      values: ['unread', 'in_progress', 'read'],
      test: (op, v) => (s) => (op === 'is' ? status(s) === v : status(s) !== v),
    },
  };

  for (const [field, spec] of Object.entries(fields)) {
    for (const op of spec.ops) {
      it(`${field} ${op}`, async () => {
        const values =
          field === 'libraryId'
            ? [lib, other]
            : op === 'isNull' || op === 'isNotNull'
              ? [undefined]
              : op === 'is' || op === 'isNot'
                ? [spec.values[0]!, ...(field === 'readStatus' ? spec.values.slice(1) : [])]
                : op === 'beginsWith'
                  ? [spec.values[2]!]
                  : spec.values.slice(1);
        for (const value of values) {
          const res = await filter(
            { condition: { [field]: { operator: op, ...(value !== undefined ? { value } : {}) } } },
            '?pageSize=500',
          );
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          const expected = all.filter(spec.test(op, value ?? '')).map((s) => s.name);
          expect(names(res.body.data), `${field} ${op} ${value}`).toEqual(expected);
          if (op !== 'isNot' && !(field === 'name' && op === 'isNull'))
            expect(expected.length, `${field} ${op} ${value} should match something`).toBeGreaterThan(0);
        }
      });
    }
  }

  it('list values with LIKE wildcards or JSON-escaped characters match literally', async () => {
    for (const [operator, value] of [
      ['contains', '%'],
      ['contains', '_'],
      ['beginsWith', '%'],
      ['is', 'Hum_r'],
      ['is', '"Humor"'],
      ['contains', '\\'],
    ] as const) {
      const res = await filter({ condition: { genre: { operator, value } } }, '?pageSize=500');
      expect(res.status).toBe(200);
      expect(names(res.body.data), `${operator} ${value}`).toEqual([]);
    }
    const humor = await filter({ condition: { genre: { operator: 'is', value: 'HUMOR' } } }, '?pageSize=500');
    expect(names(humor.body.data)).toEqual(all.filter((x) => x.metadata.genres.includes('Humor')).map((x) => x.name));
  });

  it('nested allOf/anyOf', async () => {
    const condition = {
      allOf: [
        { anyOf: [{ genre: { operator: 'is', value: 'Humor' } }, { tag: { operator: 'is', value: 'manga' } }] },
        {
          anyOf: [
            { language: { operator: 'is', value: 'fr' } },
            { allOf: [{ status: { operator: 'is', value: 'Ended' } }, { publisher: { operator: 'beginsWith', value: 'Shu' } }] },
          ],
        },
      ],
    };
    expect(names((await filter({ condition }, '?pageSize=500')).body.data)).toEqual(['Astérix', 'Dragon Ball']);
    expect(names((await filter({ condition: { anyOf: [] } })).body.data)).toEqual([]);
    expect((await filter({ condition: { allOf: [] } }, '?pageSize=500')).body.total).toBe(all.length);
    expect((await filter({}, '?pageSize=500')).body.total).toBe(all.length);
  });

  it('an unknown field or operator is a 400 naming it; inapplicable operators and bad values too', async () => {
    const unknownField = await filter({ condition: { allOf: [{ colour: { operator: 'is', value: 'red' } }] } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toContain('"colour"');
    const unknownOp = await filter({ condition: { name: { operator: 'like', value: 'x' } } });
    expect(unknownOp.status).toBe(400);
    expect(unknownOp.body.message).toContain('"like"');
    const inapplicable = await filter({ condition: { libraryId: { operator: 'contains', value: 'x' } } });
    expect(inapplicable.status).toBe(400);
    expect(inapplicable.body.message).toContain('libraryId');
    expect((await filter({ condition: { readStatus: { operator: 'is', value: 'halfway' } } })).status).toBe(400);
    expect((await filter({ condition: { name: { operator: 'is' } } })).status).toBe(400);
    expect((await filter({ condition: { name: { operator: 'is', value: 'x' }, genre: { operator: 'is', value: 'y' } } })).status).toBe(400);
    let deep: unknown = { name: { operator: 'is', value: 'x' } };
    for (let i = 0; i < 12; i++) deep = { allOf: [deep] };
    expect((await filter({ condition: deep })).status).toBe(400);
  });

  it('values are parameters, never SQL', async () => {
    const res = await filter({ condition: { name: { operator: 'is', value: "x' or '1'='1" } } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect((await filter({ condition: { name: { operator: 'contains', value: '%' } } })).body.total).toBe(0);
  });
});

describe('Full-text search', () => {
  const search = async (query: string, extra: Record<string, unknown> = {}) => {
    const res = await api<Paged<Series>>(t, 'POST', '/api/v1/series/search', { query, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return names(res.body.data);
  };

  it('is accent- and case-insensitive in both directions', async () => {
    expect(await search('asterix')).toEqual(['Astérix']);
    expect(await search('ASTÉRIX')).toEqual(['Astérix']);
    expect(await search('eclair')).toEqual(['Éclair']);
    expect(await search('Éclair')).toEqual(['Éclair']);
  });

  it('matches prefixes, every word, over name, publisher and summary', async () => {
    expect(await search('drag')).toContain('Dragon Ball');
    expect(await search('dragon ba')).toEqual(['Dragon Ball']);
    expect(await search('calv hob')).toEqual(['Calvin and Hobbes']);
    expect(await search('gaul')).toEqual(['Astérix']);
    expect(await search('dc')).toEqual(['Batman']);
    expect(await search('nothing-like-this')).toEqual([]);
  });

  it('ranks a name match above a summary match', async () => {
    expect(await search('dragon')).toEqual(['Dragon Ball', 'Astérix']);
  });

  it('filters by library and combines with conditions', async () => {
    expect(await search('dragon', { library_id: other })).toEqual([]);
    const res = await filter({ fullTextSearch: 'dragon', condition: { language: { operator: 'is', value: 'fr' } } });
    expect(names(res.body.data)).toEqual(['Astérix']);
    const sorted = await filter({ fullTextSearch: 'dragon' }, '?sort=name,asc');
    expect(names(sorted.body.data)).toEqual(['Astérix', 'Dragon Ball']);
  });

  it('operators in the query are plain words', async () => {
    expect(await search('"dragon" OR * NEAR(')).toEqual([]);
    expect((await api(t, 'POST', '/api/v1/series/search', { query: '' })).status).toBe(400);
    expect((await api<Paged<Series>>(t, 'POST', '/api/v1/series/search', { query: '***' })).body.total).toBe(0);
  });

  it('follows renames: the index is kept in sync by the database', async () => {
    await t.database.db.updateTable('series').set({ title: 'Gotham Knight' }).where('id', '=', byName('Batman').id).execute();
    expect(await search('gotham')).toEqual(['Batman']);
    await t.database.db.updateTable('series').set({ title: null }).where('id', '=', byName('Batman').id).execute();
    expect(await search('gotham')).toEqual([]);
  });
});

describe('Remembered pages never outlive a change', () => {
  // List pages (and totals) are kept while the database is unchanged: every kind of write must show at once.
  const condition = {
    condition: { allOf: [{ genre: { operator: 'is', value: 'Adventure' } }, { language: { operator: 'is', value: 'fr' } }] },
  };
  const listed = async () => {
    const res = await filter(condition);
    expect(res.status).toBe(200);
    return {
      names: names(res.body.data),
      total: res.body.total,
      publisher: res.body.data.find((s) => s.name === 'Astérix')?.metadata.publisher,
    };
  };
  const asterix = () => byName('Astérix').id;

  it("a write through the server's own connection", async () => {
    const before = await listed();
    expect(before).toMatchObject({ names: ['Astérix'], total: 1, publisher: 'Dargaud' });
    expect(await listed()).toEqual(before);
    await t.database.db.updateTable('series').set({ publisher: 'Hachette' }).where('id', '=', asterix()).execute();
    expect((await listed()).publisher).toBe('Hachette');
    await t.database.db.updateTable('series').set({ language: 'en' }).where('id', '=', asterix()).execute();
    expect(await listed()).toMatchObject({ names: [], total: 0 });
    await t.database.db.updateTable('series').set({ language: 'fr', publisher: 'Dargaud' }).where('id', '=', asterix()).execute();
    expect(await listed()).toEqual(before);
  });

  it.runIf(testDatabaseType() === 'sqlite')('a commit by another process (SQLite)', async () => {
    const before = await listed();
    const other = new SQLite(sqlitePathFor(t.config));
    try {
      other.prepare('update series set deleted_at = ? where id = ?').run(new Date().toISOString(), asterix());
      expect(await listed()).toMatchObject({ names: [], total: 0 });
      other.prepare('update series set deleted_at = null where id = ?').run(asterix());
      expect(await listed()).toEqual(before);
    } finally {
      other.close();
    }
  });
});

describe('Series reading lists and details', () => {
  it('in-progress, recently-added, recently-updated', async () => {
    expect(names(await seriesList('/api/v1/series/in-progress'))).toEqual(['Dragon Ball']);
    const added = await seriesList('/api/v1/series/recently-added?pageSize=500');
    expect(added.map((s) => s.created_at)).toEqual([...added.map((s) => s.created_at)].sort().reverse());
    const updated = await seriesList('/api/v1/series/recently-updated?pageSize=500');
    expect(updated.map((s) => s.updated_at)).toEqual([...updated.map((s) => s.updated_at)].sort().reverse());
  });

  it('GET /series/{id}, its books (by number) and 404s', async () => {
    const dragon = byName('Dragon Ball');
    expect((await api<Series>(t, 'GET', `/api/v1/series/${dragon.id}`)).body).toEqual(dragon);
    const books = await api<Paged<Book>>(t, 'GET', `/api/v1/series/${dragon.id}/books`);
    expect(books.body.data.map((b) => b.number)).toEqual(['1', '2', '3']);
    expect((await api<Paged<Book>>(t, 'GET', `/api/v1/series/${dragon.id}/books?sort=number,desc`)).body.data.map((b) => b.number)).toEqual(
      ['3', '2', '1'],
    );
    const missing = await api<{ error: string }>(t, 'GET', '/api/v1/series/01890000-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('NotFound');
    expect((await api(t, 'GET', '/api/v1/series/not-a-uuid')).status).toBe(400);
    expect((await api(t, 'GET', '/api/v1/series/01890000-0000-7000-8000-000000000000/books')).status).toBe(404);
  });

  it("GET /series/{id}/thumbnail is the first book's cover, with ETag/304", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/series/${byName('Batman').id}/thumbnail`,
      headers: { ...t.headers, accept: 'image/webp' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.rawPayload.subarray(8, 12).toString('latin1')).toBe('WEBP');
    const again = await t.app.inject({
      method: 'GET',
      url: `/api/v1/series/${byName('Batman').id}/thumbnail`,
      headers: { ...t.headers, accept: 'image/webp', 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('POST /series/{id}/read and /unread apply to every book, for the caller only', async () => {
    const reader = await createUser(t, 'reader');
    const astérix = byName('Astérix');
    const read = await call<{ books_updated: number }>(t, reader.headers, 'POST', `/api/v1/series/${astérix.id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.books_updated).toBe(3);
    expect((await call<Series>(t, reader.headers, 'GET', `/api/v1/series/${astérix.id}`)).body).toMatchObject({
      books_read_count: 3,
      books_unread_count: 0,
    });
    expect((await api<Series>(t, 'GET', `/api/v1/series/${astérix.id}`)).body).toMatchObject({ books_read_count: 0 });
    const readList = await call<Paged<Series>>(t, reader.headers, 'POST', '/api/v1/series/list', {
      condition: { readStatus: { operator: 'is', value: 'read' } },
    });
    expect(names(readList.body.data)).toEqual(['Astérix']);
    expect((await call(t, reader.headers, 'POST', `/api/v1/series/${astérix.id}/unread`)).status).toBe(200);
    expect((await call<Series>(t, reader.headers, 'GET', `/api/v1/series/${astérix.id}`)).body).toMatchObject({
      books_read_count: 0,
      books_unread_count: 3,
    });
  });
});
