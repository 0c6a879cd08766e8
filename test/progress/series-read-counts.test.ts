import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

/**
 * Series read counts (books_read_count, books_in_progress_count, books_unread_count) follow every change to
 * their inputs: progress writes of all kinds, and the scanner's soft-deletes, restores and moves, purges and
 * deletions. (On SQLite they are kept per user and series by triggers; these tests hold on both engines.)
 */
interface SeriesCounts {
  id: string;
  name: string;
  path: string;
  book_count: number;
  books_read_count: number;
  books_in_progress_count: number;
  books_unread_count: number;
}
interface Book {
  id: string;
  series_id: string;
  path: string;
}

let t: CatalogTestApp;
let dir: string;
let libraryId: string;
let reader: { id: string; headers: Headers };

const asReader = async <T>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) => {
  const res = await t.app.inject({
    method,
    url,
    headers: reader.headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return (res.body ? res.json() : null) as T;
};

/** Counts by series folder (a series' name may come from its books' metadata). */
async function counts(): Promise<Record<string, [read: number, inProgress: number, unread: number]>> {
  const list = await asReader<{ data: SeriesCounts[] }>('GET', `/api/v1/series?library_id=${libraryId}&pageSize=100`);
  const out: Record<string, [number, number, number]> = {};
  for (const s of list.data) {
    out[s.path] = [s.books_read_count, s.books_in_progress_count, s.books_unread_count];
    // A series' own view says the same as the list.
    const one = await asReader<SeriesCounts>('GET', `/api/v1/series/${s.id}`);
    expect([one.books_read_count, one.books_in_progress_count, one.books_unread_count]).toEqual(out[s.path]);
  }
  return out;
}

async function bookAt(relPath: string): Promise<Book> {
  const list = await api<{ data: Book[] }>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=100`);
  const book = list.body.data.find((b) => b.path === relPath);
  if (!book) throw new Error(`no book at ${relPath}`);
  return book;
}

beforeAll(async () => {
  t = await createCatalogApp();
  dir = libraryDir();
  // Distinct contents (the ComicInfo title), so that a moved file is recognised by its hash alone.
  for (const n of [1, 2, 3]) await makeCbz(path.join(dir, 'Alpha'), `Alpha 0${n}.cbz`, { pages: 4, comicInfo: { Title: `Alpha ${n}` } });
  for (const n of [1, 2]) await makeCbz(path.join(dir, 'Beta'), `Beta 0${n}.cbz`, { pages: 4, comicInfo: { Title: `Beta ${n}` } });
  libraryId = (await createLibrary(t, dir)).id;
  await scan(t, libraryId);
  reader = await createUser(t, 'reader');
});
afterAll(() => t.close());

describe('Series read counts follow progress and the book lifecycle', () => {
  it('progress: started, finished, back to started, cleared; book and series read/unread', async () => {
    expect(await counts()).toEqual({ Alpha: [0, 0, 3], Beta: [0, 0, 2] });
    const a1 = await bookAt('Alpha/Alpha 01.cbz');
    const a2 = await bookAt('Alpha/Alpha 02.cbz');
    await asReader('PUT', `/api/v1/books/${a1.id}/progress`, { current_page: 2 });
    expect((await counts()).Alpha).toEqual([0, 1, 2]);
    await asReader('PUT', `/api/v1/books/${a1.id}/progress`, { current_page: 3 }); // a page turn: same counts
    expect((await counts()).Alpha).toEqual([0, 1, 2]);
    await asReader('PUT', `/api/v1/books/${a1.id}/progress`, { current_page: 4, is_completed: true });
    expect((await counts()).Alpha).toEqual([1, 0, 2]);
    await asReader('PUT', `/api/v1/books/${a1.id}/progress`, { current_page: 1, is_completed: false });
    expect((await counts()).Alpha).toEqual([0, 1, 2]);
    await asReader('POST', `/api/v1/books/${a2.id}/read`);
    expect((await counts()).Alpha).toEqual([1, 1, 1]);
    await asReader('DELETE', `/api/v1/books/${a1.id}/progress`);
    expect((await counts()).Alpha).toEqual([1, 0, 2]);
    const beta = (await asReader<{ data: SeriesCounts[] }>('GET', `/api/v1/series?library_id=${libraryId}`)).data.find(
      (s) => s.path === 'Beta',
    )!;
    await asReader('POST', `/api/v1/series/${beta.id}/read`);
    expect(await counts()).toEqual({ Alpha: [1, 0, 2], Beta: [2, 0, 0] });
    await asReader('POST', `/api/v1/series/${beta.id}/unread`);
    expect(await counts()).toEqual({ Alpha: [1, 0, 2], Beta: [0, 0, 2] });
    // Another user's reading is not counted for this one.
    const alphaId = (await bookAt('Alpha/Alpha 03.cbz')).id;
    await api(t, 'POST', `/api/v1/books/${alphaId}/read`);
    expect((await counts()).Alpha).toEqual([1, 0, 2]);
  });

  it('a book whose file goes away stops counting, and counts again when it comes back', async () => {
    const a2 = await bookAt('Alpha/Alpha 02.cbz'); // read by the reader
    await rename(path.join(dir, 'Alpha/Alpha 02.cbz'), path.join(dir, '..', 'alpha2.away'));
    await scan(t, libraryId);
    expect((await counts()).Alpha).toEqual([0, 0, 2]);
    await rename(path.join(dir, '..', 'alpha2.away'), path.join(dir, 'Alpha/Alpha 02.cbz'));
    await scan(t, libraryId);
    expect((await bookAt('Alpha/Alpha 02.cbz')).id).toBe(a2.id);
    expect((await counts()).Alpha).toEqual([1, 0, 2]);
  });

  it('a book moved to another series (same hash) carries its progress to the new series', async () => {
    const a2 = await bookAt('Alpha/Alpha 02.cbz');
    await mkdir(path.join(dir, 'Gamma'));
    await rename(path.join(dir, 'Alpha/Alpha 02.cbz'), path.join(dir, 'Gamma/Alpha 02.cbz'));
    await scan(t, libraryId);
    expect((await bookAt('Gamma/Alpha 02.cbz')).id).toBe(a2.id);
    expect(await counts()).toEqual({ Alpha: [0, 0, 2], Beta: [0, 0, 2], Gamma: [1, 0, 0] });
  });

  it('purged books and deleted libraries leave nothing behind', async () => {
    const b1 = await bookAt('Beta/Beta 01.cbz');
    await asReader('PUT', `/api/v1/books/${b1.id}/progress`, { current_page: 2 });
    expect((await counts()).Beta).toEqual([0, 1, 1]);
    await rm(path.join(dir, 'Beta/Beta 01.cbz'));
    await scan(t, libraryId);
    expect((await counts()).Beta).toEqual([0, 0, 1]);
    expect((await api(t, 'DELETE', `/api/v1/libraries/${libraryId}/purge-deleted`)).status).toBe(200);
    expect((await counts()).Beta).toEqual([0, 0, 1]);
    // The same files scanned again as a new library: new books, nothing read.
    expect((await api(t, 'DELETE', `/api/v1/libraries/${libraryId}`)).status).toBe(204);
    if (t.database.dialect === 'sqlite') {
      // The kept counts of the deleted series are gone with them, not left to pile up.
      const { rows } = await sql<{ n: number }>`select count(*) as n from series_read_counts`.execute(t.database.db);
      expect(rows[0]!.n).toBe(0);
    }
    libraryId = (await createLibrary(t, dir)).id;
    await scan(t, libraryId);
    expect(await counts()).toEqual({ Alpha: [0, 0, 2], Beta: [0, 0, 1], Gamma: [0, 0, 1] });
  });
});
