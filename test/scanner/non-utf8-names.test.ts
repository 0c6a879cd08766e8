import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

describe('a file whose name is not valid UTF-8', () => {
  it('is counted as an error of the first scan and of a rescan (not silently missing), and its neighbours are scanned', async () => {
    const dir = libraryDir();
    const good = await makeCbz(dir, 'Old/Old 001.cbz', { pages: 1 });
    // "été 2.cbz" written in Latin-1, as an old disk or archive leaves it: the byte 0xE9 alone is not UTF-8.
    const latin1 = Buffer.concat([Buffer.from(`${path.join(dir, 'Old')}/`), Buffer.from('\xe9t\xe9 2.cbz', 'latin1')]);
    await copyFile(good, latin1);
    const { id } = await createLibrary(t, dir);
    const first = await scan(t, id);
    expect(first.result).toMatchObject({ books_added: 1, errors: 1 });
    const rescan = await scan(t, id);
    expect(rescan.result).toMatchObject({ books_added: 0, books_deleted: 0, errors: 1 });
    const paths = await t.database.db.selectFrom('books').select('path').where('library_id', '=', id).execute();
    expect(paths.map((p) => p.path)).toEqual(['Old/Old 001.cbz']);
  });
});
