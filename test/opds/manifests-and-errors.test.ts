import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
let dir: string;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await createCatalogApp();
  dir = libraryDir();
  await makeEpub(dir, 'Novel/Novel.epub', { pages: 2, metadata: { title: 'Novel' } });
  await makeCbz(dir, 'Comic/Comic 001.cbz', { pages: 2 });
  const cbz = await makeCbz(dir, 'Comic/Comic 002.cbz', { pages: 2 });
  const broken = await makeEpub(dir, 'Broken/Broken.epub', { pages: 2 });
  await scan(t, (await createLibrary(t, dir)).id);
  for (const row of await t.database.db.selectFrom('books').select(['id', 'path']).execute()) ids[row.path] = row.id;
  // Both files change after the scan: the catalog still thinks them readable, the reads fail.
  await writeFile(cbz, 'not a zip any more');
  await writeFile(broken, 'not a zip any more');
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.headers });

describe('OPDS 2 DiViNa manifests', () => {
  it('exist for books of page images only: an EPUB of text is a 404 that says why', async () => {
    expect((await get(`/opds/v2/books/${ids['Comic/Comic 001.cbz']}/manifest`)).statusCode).toBe(200);
    const epub = await get(`/opds/v2/books/${ids['Novel/Novel.epub']}/manifest`);
    expect(epub.statusCode).toBe(404);
    expect(epub.json<{ message: string }>().message).toContain('no DiViNa manifest');
  });
});

describe('a book that cannot be read', () => {
  it('is a 422 that names the file but not where the server keeps its libraries', async () => {
    for (const url of [`/api/v1/books/${ids['Broken/Broken.epub']}/manifest`, `/api/v1/books/${ids['Comic/Comic 002.cbz']}/pages/1`]) {
      const res = await get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
      expect(res.body, url).not.toContain(dir);
      expect(res.json<{ message: string }>().message, url).toMatch(/Broken\.epub|Comic 002\.cbz/);
    }
  });
});
