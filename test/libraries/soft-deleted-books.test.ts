import { mkdtemp, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

/**
 * Book file lifecycle (spec): present -> (scan, file missing) -> soft-deleted: "removed from library views;
 * reading progress is kept"; soft-deleted -> (scan, file back) -> present: "restored". A soft-deleted book
 * is a missing book for the API: 404 NotFound, like any book that does not exist.
 */

interface Book {
  id: string;
  title: string;
  series_id: string;
  progress: { current_page: number; is_completed: boolean } | null;
}
interface Series {
  id: string;
  book_count: number;
  books_in_progress_count: number;
}

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

describe('A soft-deleted book is hidden from the API and comes back with its id and progress', () => {
  it('file removed + normal rescan: gone from lists, counts and GET /books/{id}; file back + rescan: visible again', async () => {
    const lib = await scannedLibrary(t, async (dir) => {
      for (const n of [1, 2, 3]) {
        await makeCbz(path.join(dir, 'Soft'), `Soft ${n}.cbz`, {
          pages: 3,
          pageSize: { width: 40, height: 60 },
          comicInfo: { Series: 'Soft', Number: String(n), Title: `Soft ${n}` },
        });
      }
    });
    const reader = await createUser(t, 'reader');
    const titles = (books: Book[]) => books.map((b) => b.title).sort();
    const libraryBooks = async () =>
      (await call<Paged<Book>>(t, reader.headers, 'GET', `/api/v1/books?library_id=${lib.id}&pageSize=500`)).body;
    const allBooks = async () => (await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books?pageSize=500')).body;

    const before = await libraryBooks();
    expect(titles(before.data)).toEqual(['Soft 1', 'Soft 2', 'Soft 3']);
    const soft2 = before.data.find((b) => b.title === 'Soft 2')!;
    const seriesId = soft2.series_id;
    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${soft2.id}/progress`, { current_page: 2 })).status).toBe(200);
    expect((await call<Series>(t, reader.headers, 'GET', `/api/v1/series/${seriesId}`)).body).toMatchObject({
      book_count: 3,
      books_in_progress_count: 1,
    });

    // The file goes away; a normal scan soft-deletes the book.
    const holding = await mkdtemp(path.join(os.tmpdir(), 'colophon-away-'));
    const file = path.join(lib.dir, 'Soft', 'Soft 2.cbz');
    await rename(file, path.join(holding, 'Soft 2.cbz'));
    expect((await scan(t, lib.id, 'normal')).result).toMatchObject({ books_deleted: 1, books_added: 0, errors: 0 });

    const listed = await libraryBooks();
    expect(titles(listed.data)).toEqual(['Soft 1', 'Soft 3']);
    expect(listed.total).toBe(2);
    expect((await allBooks()).data.some((b) => b.id === soft2.id)).toBe(false);
    const seriesBooks = (await call<Paged<Book>>(t, reader.headers, 'GET', `/api/v1/series/${seriesId}/books`)).body;
    expect(titles(seriesBooks.data)).toEqual(['Soft 1', 'Soft 3']);
    expect(seriesBooks.total).toBe(2);
    expect((await call<Series>(t, reader.headers, 'GET', `/api/v1/series/${seriesId}`)).body).toMatchObject({
      book_count: 2,
      books_in_progress_count: 0,
    });
    expect((await api(t, 'GET', `/api/v1/libraries/${lib.id}`)).body).toMatchObject({ series_count: 1, book_count: 2 });

    const gone = await call<{ error: string }>(t, reader.headers, 'GET', `/api/v1/books/${soft2.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe('NotFound');
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${soft2.id}/pages`)).status).toBe(404);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${soft2.id}/thumbnail`)).status).toBe(404);
    expect((await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/in-progress')).body.total).toBe(0);
    expect((await call<Paged<unknown>>(t, reader.headers, 'GET', '/api/v1/progress')).body.total).toBe(0);
    // Hidden, not lost: the progress row is still there.
    expect(
      await t.database.db.selectFrom('read_progress').select(['book_id', 'current_page']).where('book_id', '=', soft2.id).execute(),
    ).toEqual([{ book_id: soft2.id, current_page: 2 }]);

    // The file comes back: the same book (same id) is present again, with the reader's progress.
    await rename(path.join(holding, 'Soft 2.cbz'), file);
    expect((await scan(t, lib.id, 'normal')).result).toMatchObject({ books_restored: 1, books_added: 0, books_deleted: 0, errors: 0 });
    const back = await call<Book>(t, reader.headers, 'GET', `/api/v1/books/${soft2.id}`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({
      id: soft2.id,
      title: 'Soft 2',
      series_id: seriesId,
      progress: { current_page: 2, is_completed: false },
    });
    expect(titles((await libraryBooks()).data)).toEqual(['Soft 1', 'Soft 2', 'Soft 3']);
    expect((await call<Paged<Book>>(t, reader.headers, 'GET', `/api/v1/series/${seriesId}/books`)).body.data.map((b) => b.id)).toContain(
      soft2.id,
    );
    expect((await call<Series>(t, reader.headers, 'GET', `/api/v1/series/${seriesId}`)).body).toMatchObject({
      book_count: 3,
      books_in_progress_count: 1,
    });
    expect((await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/in-progress')).body.data.map((b) => b.id)).toEqual([soft2.id]);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${soft2.id}/progress`)).body).toMatchObject({
      book_id: soft2.id,
      current_page: 2,
    });
  });
});
