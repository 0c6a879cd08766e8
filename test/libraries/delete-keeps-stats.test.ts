import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

/**
 * Book file lifecycle, last row of the spec: permanent deletion (purge of deleted books, or deletion of the
 * library) removes the book and the users' current progress in it; reading time and finished read-throughs
 * stay in the statistics under a "Removed from library" line. test/progress covers the purge; this is the
 * deletion of the library.
 */

interface Book {
  id: string;
  title: string;
  series_id: string;
}
interface Stats {
  books_completed: number;
  pages_read: number;
  reading_seconds: number;
  top_series: { name: string; pages_read: number; books_completed: number }[];
  removed_from_library: null | {
    label: string;
    pages_read: number;
    reading_seconds: number;
    books_completed: number;
    books: { book_id: string; title: string; series_name: string }[];
  };
}

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

const fourPages = (series: string, n: number) => ({
  pages: 4,
  pageSize: { width: 40, height: 60 },
  comicInfo: { Series: series, Number: String(n), Title: `${series} ${n}` },
});

async function booksOf(libraryId: string): Promise<Map<string, Book>> {
  const res = await api<Paged<Book>>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=500`);
  expect(res.status).toBe(200);
  return new Map(res.body.data.map((b) => [b.title, b]));
}

const put = (headers: Headers, id: string, body: unknown) => call(t, headers, 'PUT', `/api/v1/books/${id}/progress`, body);

describe('DELETE /libraries/{id}: current progress goes with the books, statistics stay under "Removed from library"', () => {
  it('removes the progress in its books; reading time and read-throughs remain in /reading-stats', async () => {
    const doomed = await scannedLibrary(t, async (dir) => {
      await makeCbz(path.join(dir, 'Doomed'), 'Doomed 1.cbz', fourPages('Doomed', 1));
      await makeCbz(path.join(dir, 'Doomed'), 'Doomed 2.cbz', fourPages('Doomed', 2));
    });
    const kept = await scannedLibrary(t, async (dir) => {
      await makeCbz(path.join(dir, 'Kept'), 'Kept 1.cbz', fourPages('Kept', 1));
    });
    const doomedBooks = await booksOf(doomed.id);
    const d1 = doomedBooks.get('Doomed 1')!;
    const d2 = doomedBooks.get('Doomed 2')!;
    const k1 = (await booksOf(kept.id)).get('Kept 1')!;

    const reader = await createUser(t, 'reader');
    // Doomed 1: read over more than a second (reading time), then finished (a read-through).
    expect((await put(reader.headers, d1.id, { current_page: 1 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await put(reader.headers, d1.id, { current_page: 3 })).status).toBe(200);
    expect((await put(reader.headers, d1.id, { is_completed: true })).status).toBe(200);
    // Doomed 2 in progress; Kept 1 in the library that stays.
    expect((await put(reader.headers, d2.id, { current_page: 2 })).status).toBe(200);
    expect((await put(reader.headers, k1.id, { current_page: 2 })).status).toBe(200);

    const before = (await call<Stats>(t, reader.headers, 'GET', '/api/v1/reading-stats')).body;
    expect(before).toMatchObject({ books_completed: 1, pages_read: 8, removed_from_library: null });
    expect(before.reading_seconds).toBeGreaterThanOrEqual(1);
    expect(before.top_series.map((s) => s.name).sort()).toEqual(['Doomed', 'Kept']);
    expect((await call<Paged<{ book_id: string }>>(t, reader.headers, 'GET', '/api/v1/progress')).body.total).toBe(3);

    expect((await api(t, 'DELETE', `/api/v1/libraries/${doomed.id}`)).status).toBe(204);

    // Current progress in the deleted books is gone, in the API and in the database; the other library's stays.
    const progress = (await call<Paged<{ book_id: string; current_page: number }>>(t, reader.headers, 'GET', '/api/v1/progress')).body;
    expect(progress.data.map((p) => [p.book_id, p.current_page])).toEqual([[k1.id, 2]]);
    expect(progress.total).toBe(1);
    for (const id of [d1.id, d2.id]) expect((await call(t, reader.headers, 'GET', `/api/v1/books/${id}/progress`)).status).toBe(404);
    expect(await t.database.db.selectFrom('read_progress').select('book_id').where('book_id', 'in', [d1.id, d2.id]).execute()).toEqual([]);

    // Statistics: same totals; the deleted books' share is the "Removed from library" line.
    const after = (await call<Stats>(t, reader.headers, 'GET', '/api/v1/reading-stats')).body;
    expect(after).toMatchObject({ books_completed: 1, pages_read: 8, reading_seconds: before.reading_seconds });
    expect(after.top_series.map((s) => s.name)).toEqual(['Kept']);
    expect(after.removed_from_library).toMatchObject({ label: 'Removed from library', pages_read: 6, books_completed: 1 });
    expect(after.removed_from_library!.reading_seconds).toBeGreaterThanOrEqual(1);
    expect(after.removed_from_library!.reading_seconds).toBe(before.reading_seconds);
    expect(after.removed_from_library!.books.map((b) => ({ ...b })).sort((a, b) => a.title.localeCompare(b.title))).toEqual([
      { book_id: d1.id, title: 'Doomed 1', series_name: 'Doomed' },
      { book_id: d2.id, title: 'Doomed 2', series_name: 'Doomed' },
    ]);
  });
});
