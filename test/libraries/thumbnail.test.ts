import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeholderImage } from '../../src/libraries/service.js';
import { makeCbz, makePdf } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

/**
 * GET /libraries/{id}/thumbnail: "the cover of the most recently added series; a generated image when the
 * library has none". Every book here has a one-page cover of its own colour, so which book's cover came back
 * is visible both in the bytes (compared with GET /books/{id}/thumbnail, which encodes the same way) and in
 * the pixels.
 */

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

interface BookRow {
  id: string;
  title: string;
  series_id: string;
  analysis_error: string | null;
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A book whose single page (its cover) is a solid colour. */
const coloured = (dir: string, name: string, color: string) =>
  makeCbz(dir, name, { pages: [{ name: 'cover.jpg', width: 60, height: 90, color }] });

async function image(url: string): Promise<{ type: string; data: Buffer }> {
  const res = await t.app.inject({ method: 'GET', url, headers: { ...t.headers, accept: 'image/webp,image/*' } });
  expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
  return { type: String(res.headers['content-type']), data: res.rawPayload };
}

const libraryCover = (libraryId: string) => image(`/api/v1/libraries/${libraryId}/thumbnail`);
const bookCover = (bookId: string) => image(`/api/v1/books/${bookId}/thumbnail`);

/** Mean colour of an image, rounded, as [r, g, b]. */
async function meanColour(data: Buffer): Promise<number[]> {
  const { channels } = await sharp(data).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

async function booksOf(libraryId: string): Promise<Map<string, BookRow>> {
  const res = await api<{ data: BookRow[] }>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=500`);
  expect(res.status).toBe(200);
  return new Map(res.body.data.map((b) => [b.title, b]));
}

describe('GET /libraries/{id}/thumbnail follows the most recently added series', () => {
  it('a series added by a later scan takes over the cover; its first book by number, unnumbered books last', async () => {
    const dir = libraryDir();
    await coloured(dir, 'Old/Old 01.cbz', '#d02020');
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    let books = await booksOf(lib.id);
    const old1 = books.get('Old 01')!;
    const first = await libraryCover(lib.id);
    expect(first.type).toMatch(/^image\/(webp|jpeg|png)$/);
    expect(sha(first.data)).toBe(sha((await bookCover(old1.id)).data));

    // Later: a second series. "Annual" has no number; on SQLite an ascending order puts it first, so the
    // cover must not come from it: the series cover is its first numbered book, "New 01".
    await coloured(dir, 'New/Annual.cbz', '#20d020');
    await coloured(dir, 'New/New 02.cbz', '#d0d020');
    await coloured(dir, 'New/New 01.cbz', '#2020d0');
    const rescan = await scan(t, lib.id);
    expect(rescan.result).toMatchObject({ series_created: 1, books_added: 3, errors: 0 });
    books = await booksOf(lib.id);
    const new1 = books.get('New 01')!;
    expect(books.get('Annual')).toBeDefined();
    expect(new1.series_id).not.toBe(old1.series_id);

    const cover = await libraryCover(lib.id);
    expect(sha(cover.data)).toBe(sha((await bookCover(new1.id)).data));
    expect(sha(cover.data)).toBe(sha((await image(`/api/v1/series/${new1.series_id}/thumbnail`)).data));
    expect(sha(cover.data)).not.toBe(sha(first.data));
    for (const other of ['Old 01', 'Annual', 'New 02'])
      expect(sha(cover.data), other).not.toBe(sha((await bookCover(books.get(other)!.id)).data));
    const [r, g, b] = await meanColour(cover.data);
    expect(b).toBeGreaterThan(150);
    expect(r).toBeLessThan(80);
    expect(g).toBeLessThan(80);
  });

  it("when every book of the newest series failed analysis, the generated image, not an older series' cover", async () => {
    const dir = libraryDir();
    await coloured(dir, 'Good/Good 01.cbz', '#d02020');
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    const good = await libraryCover(lib.id);
    expect(good.type).toMatch(/^image\/(webp|jpeg|png)$/);

    await writeBroken(dir, 'Broken/Broken 01.cbz');
    await writeBroken(dir, 'Broken/Broken 02.cbz');
    const rescan = await scan(t, lib.id);
    expect(rescan.result).toMatchObject({ series_created: 1, books_added: 2, errors: 2 });
    const books = await booksOf(lib.id);
    expect(books.get('Broken 01')?.analysis_error).toEqual(expect.any(String));
    expect(books.get('Broken 02')?.analysis_error).toEqual(expect.any(String));

    const library = await api<{ name: string }>(t, 'GET', `/api/v1/libraries/${lib.id}`);
    const cover = await libraryCover(lib.id);
    expect(cover.type).toBe('image/svg+xml');
    expect(cover.data.equals(placeholderImage(library.body.name).data)).toBe(true);
    expect(sha(cover.data)).not.toBe(sha(good.data));
  });

  it('inside the newest series, a failed book gives way to the first readable one', async () => {
    const dir = libraryDir();
    await coloured(dir, 'Older/Older 01.cbz', '#d02020');
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    // Neither has a number, so "Alpha" (unreadable) would come first by title.
    await writeBroken(dir, 'Mixed/Alpha.cbz');
    await coloured(dir, 'Mixed/Beta.cbz', '#2020d0');
    await scan(t, lib.id);
    const books = await booksOf(lib.id);
    expect(books.get('Alpha')?.analysis_error).toEqual(expect.any(String));
    const cover = await libraryCover(lib.id);
    expect(cover.type).toMatch(/^image\/(webp|jpeg|png)$/);
    expect(sha(cover.data)).toBe(sha((await bookCover(books.get('Beta')!.id)).data));
  });
});

/** A .cbz that is not a zip: it becomes a book with an analysis_error. */
async function writeBroken(dir: string, name: string): Promise<void> {
  await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
  await writeFile(path.join(dir, name), 'this is not a zip archive at all');
}

describe('GET /libraries/{id}/thumbnail of a PDF library', () => {
  it('a PDF book gives the library its cover too (drawn in the worker threads that draw PDF pages)', async () => {
    const dir = libraryDir();
    await makePdf(dir, 'Manual/Manual.pdf', { pages: 2 });
    const { id } = await createLibrary(t, dir);
    await scan(t, id);
    const cover = await image(`/api/v1/libraries/${id}/thumbnail`);
    expect(cover.type).not.toBe('image/svg+xml');
    expect((await sharp(cover.data).metadata()).width).toBeGreaterThan(0);
  });
});
