import { copyFile, rename, stat, symlink, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz, makeImage } from '../media/fixtures.js';

// The original bytes of a page stored uncompressed are read straight from the book's file once their place in
// it is known (no archive opened): they must be the page's bytes every time, and a book rewritten in place
// must be read afresh, not from the remembered place.

let t: CatalogTestApp;
let dir: string;
let pages: { jpeg: Buffer; png: Buffer };
let url: (n: number) => string;

const bookPages = (jpeg: Buffer, png: Buffer) => [
  { name: '001.jpg', data: jpeg },
  { name: '002.png', data: png },
];

beforeAll(async () => {
  t = await createCatalogApp();
  pages = {
    jpeg: await makeImage({ width: 300, height: 450, format: 'jpeg', noise: true }),
    png: await makeImage({ width: 200, height: 300, format: 'png' }),
  };
  const lib = await scannedLibrary(
    t,
    async (d) => void (await makeCbz(path.join(d, 'Stored'), 'Stored 001.cbz', { pages: bookPages(pages.jpeg, pages.png), store: true })),
  );
  dir = lib.dir;
  const books = await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books');
  url = (n) => `/api/v1/books/${books.body.data[0]!.id}/pages/${n}`;
});
afterAll(() => t.close());

const get = (target: string) => t.app.inject({ method: 'GET', url: target, headers: t.headers });

describe('Original bytes of stored pages', () => {
  it('are the page bytes with their media type on every read, and ETag/304 still hold', async () => {
    for (let round = 0; round < 3; round++) {
      const first = await get(url(1));
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toBe('image/jpeg');
      expect(first.rawPayload.equals(pages.jpeg)).toBe(true);
      const second = await get(url(2));
      expect(second.headers['content-type']).toBe('image/png');
      expect(second.rawPayload.equals(pages.png)).toBe(true);
      const again = await t.app.inject({
        method: 'GET',
        url: url(1),
        headers: { ...t.headers, 'if-none-match': String(first.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    }
  });

  it('are read afresh from a book rewritten in place with other pages', async () => {
    expect((await get(url(1))).rawPayload.equals(pages.jpeg)).toBe(true);
    const bigger = await makeImage({ width: 500, height: 750, format: 'jpeg', noise: true });
    const file = await makeCbz(path.join(dir, 'Stored'), 'Stored 001.cbz', { pages: bookPages(bigger, pages.png), store: true });
    // A different size and time: the book's file is another one, whatever the resolver's one-second trust.
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await get(url(1));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bigger)).toBe(true);
  });

  it('are refused when the book is replaced by a link out of its library, even one to the very same bytes', async () => {
    const file = path.join(dir, 'Stored', 'Stored 001.cbz');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await get(url(1))).statusCode).toBe(200);
    const outside = path.join(os.tmpdir(), `colophon-outside-${process.pid}-${Date.now()}.cbz`);
    await copyFile(file, outside);
    const info = await stat(file);
    await utimes(outside, info.atime, info.mtime);
    await rename(file, `${file}.moved`);
    await symlink(outside, file);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await get(url(1))).statusCode).toBe(403);
  });
});
