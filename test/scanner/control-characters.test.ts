import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

describe('metadata with control characters XML does not allow', () => {
  it('are dropped, so that one such book neither fails the scan (PostgreSQL refuses NUL in text) nor loses its neighbours', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Ctl/Ctl 001.cbz', {
      pages: 1,
      comicInfo: '<ComicInfo><Title>Nul\u0000Title\u0007</Title><Series>Ctl&#0;&#x1F;</Series><Summary>tab\tkept</Summary></ComicInfo>',
    });
    await makeCbz(dir, 'Ctl/Ctl 002.cbz', { pages: 1, comicInfo: { Title: 'Plain' } });
    const { id } = await createLibrary(t, dir);
    const done = await scan(t, id);
    expect(done.result).toMatchObject({ books_added: 2, errors: 0 });
    const rows = await t.database.db
      .selectFrom('books')
      .select(['path', 'title', 'summary', 'metadata'])
      .where('library_id', '=', id)
      .orderBy('path')
      .execute();
    expect(rows.map((r) => r.title)).toEqual(['NulTitle', 'Plain']);
    expect(rows[0]!.summary).toBe('tab\tkept');
    expect(JSON.parse(rows[0]!.metadata)).toMatchObject({ series: 'Ctl' });
  });
});
