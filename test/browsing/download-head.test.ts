import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
let bookId: string;
let size: number;
beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  const file = await makeCbz(dir, 'Head 001.cbz', { pages: 2 });
  size = statSync(file).size;
  await scan(t, (await createLibrary(t, dir)).id);
  bookId = (await t.database.db.selectFrom('books').select('id').where('path', '=', path.basename(file)).executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

describe('HEAD /books/{id}/file', () => {
  it('answers 200 with the headers of the download and no body (never 500)', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: `/api/v1/books/${bookId}/file`, headers: t.headers });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['content-disposition']).toContain('Head 001.cbz');
    expect(Number(res.headers['content-length'])).toBe(size);
    expect(res.headers.etag).toBeTruthy();
  });
});
