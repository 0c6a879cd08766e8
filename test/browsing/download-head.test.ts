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

describe('ranges and validators of /books/{id}/file', () => {
  const download = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/file`, headers: { ...t.headers, ...headers } });

  it('If-Range with the current ETag or date resumes (206); any other validator gets the whole file (200)', async () => {
    const { etag, 'last-modified': lastModified } = (await download({})).headers as { etag: string; 'last-modified': string };
    expect((await download({ range: 'bytes=0-9', 'if-range': etag })).statusCode).toBe(206);
    expect((await download({ range: 'bytes=0-9', 'if-range': lastModified })).statusCode).toBe(206);
    for (const validator of ['"an-older-version"', `W/${etag}`, 'Tue, 01 Jan 2019 00:00:00 GMT', 'garbage']) {
      const res = await download({ range: 'bytes=0-9', 'if-range': validator });
      expect(res.statusCode, validator).toBe(200);
      expect(res.rawPayload.length, validator).toBe(size);
      expect(res.headers['content-range'], validator).toBeUndefined();
    }
  });

  it('an invalid range (last before first) is ignored; one past the end is a 416', async () => {
    const invalid = await download({ range: 'bytes=10-5' });
    expect(invalid.statusCode).toBe(200);
    expect(invalid.rawPayload.length).toBe(size);
    const outside = await download({ range: `bytes=${size}-` });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${size}`);
  });

  it('If-None-Match compares weakly and takes a list', async () => {
    const { etag } = (await download({})).headers as { etag: string };
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*'])
      expect((await download({ 'if-none-match': header })).statusCode, header).toBe(304);
    expect((await download({ 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('a file replaced since the scan gets a new ETag: the old one no longer answers 304', async () => {
    const dir = libraryDir();
    const file = await makeCbz(dir, 'Swap 001.cbz', { pages: 2 });
    await scan(t, (await createLibrary(t, dir)).id);
    const id = (await t.database.db.selectFrom('books').select('id').where('path', '=', 'Swap 001.cbz').executeTakeFirstOrThrow()).id;
    const get = (headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: `/api/v1/books/${id}/file`, headers: { ...t.headers, ...headers } });
    const before = (await get()).headers.etag as string;
    await makeCbz(dir, 'Swap 001.cbz', { pages: 3 });
    const after = await get({ 'if-none-match': before });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before);
    expect(after.rawPayload.length).toBe(statSync(file).size);
  });
});
