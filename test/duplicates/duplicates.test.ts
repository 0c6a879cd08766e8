import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeTitle } from '../../src/catalog/duplicates/normalize-title.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, waitForTask, type CatalogTestApp } from '../scanner/helpers.js';

interface BookGroup {
  id: string;
  hash: string;
  book_count: number;
  books: Array<{
    book_id: string;
    title: string;
    path: string;
    size: number;
    series: { id: string; name: string };
    library: { id: string; name: string };
  }>;
}
interface SeriesGroup {
  id: string;
  match_type: string;
  match_key: string;
  confidence: string;
  library_id: string | null;
  series: Array<{ series_id: string; name: string; library: { id: string; name: string }; book_count: number; last_updated: string }>;
}
interface Page<T> {
  data: T[];
  total: number;
}

describe('Series title normalisation: case, accents, punctuation, articles and volume suffixes', () => {
  it.each([
    ['The Amazing Spider-Man (2018)', 'amazing spiderman'],
    ['Amazing Spiderman Vol. 2', 'amazing spiderman'],
    ['amazing spider man', 'amazing spider man'],
    ['Amazing Spider-Man, The', 'amazing spiderman'],
    ['Pokémon Adventures', 'pokemon adventures'],
    ['POKEMON ADVENTURES v03', 'pokemon adventures'],
    ['L’Arabe du futur - Tome 2', 'arabe du futur'],
    ['Le Petit Prince', 'petit prince'],
    ['Batman & Robin', 'batman and robin'],
    ['Batman and Robin [Digital]', 'batman and robin'],
    ['Die Drei ???', 'drei'],
    ['The', 'the'],
    ['One-Punch Man Volume 10', 'onepunch man'],
  ])('%s → %s', (title, key) => {
    expect(normalizeTitle(title)).toBe(key);
  });
});

describe('Duplicates', () => {
  let t: CatalogTestApp;
  let libA: string;
  let libB: string;
  let dirA: string;
  let dirB: string;

  const runDuplicateScan = async () => {
    const res = await api<{ id: string; task_type: string }>(t, 'POST', '/api/v1/duplicates/scan');
    expect(res.status).toBe(202);
    expect(res.body.task_type).toBe('detect_duplicates');
    const done = await waitForTask(t, res.body.id);
    expect(done.status).toBe('completed');
    return done;
  };

  beforeAll(async () => {
    t = await createCatalogApp();
    dirA = libraryDir();
    dirB = libraryDir();
    mkdirSync(path.join(dirA, 'Saga'));
    mkdirSync(path.join(dirA, 'The Amazing Spider-Man (2018)'));
    mkdirSync(path.join(dirA, 'Amazing Spider-Man, The'));
    mkdirSync(path.join(dirA, 'Unique'));
    mkdirSync(path.join(dirB, 'Copies'));
    mkdirSync(path.join(dirB, 'Amazing Spider-Man'));
    const saga = await makeCbz(path.join(dirA, 'Saga'), 'Saga 001.cbz', { pages: 2, noise: true });
    copyFileSync(saga, path.join(dirB, 'Copies', 'renamed copy.cbz'));
    copyFileSync(saga, path.join(dirA, 'Unique', 'same bytes again.cbz'));
    await makeCbz(path.join(dirA, 'The Amazing Spider-Man (2018)'), 'ASM 001.cbz', {
      pages: 1,
      pageSize: { width: 100, height: 150 },
      comicInfo: { Series: 'The Amazing Spider-Man (2018)', Number: 1 },
    });
    await makeCbz(path.join(dirA, 'Amazing Spider-Man, The'), 'ASM 002.cbz', {
      pages: 1,
      pageSize: { width: 110, height: 150 },
      comicInfo: { Series: 'Amazing Spider-Man, The', Number: 2 },
    });
    await makeCbz(path.join(dirB, 'Amazing Spider-Man'), 'ASM 003.cbz', {
      pages: 1,
      pageSize: { width: 120, height: 150 },
      comicInfo: { Series: 'Amazing Spider-Man', Number: 3 },
    });
    libA = (await createLibrary(t, dirA)).id;
    libB = (await createLibrary(t, dirB)).id;
    await scan(t, libA);
    await scan(t, libB);
  });
  afterAll(() => t.close());

  it("book groups: same SHA-256 whatever the file name, library or series, with each member's details", async () => {
    const done = await runDuplicateScan();
    expect(done.result).toMatchObject({ book_groups: 1 });
    const res = await api<Page<BookGroup>>(t, 'GET', '/api/v1/duplicates');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const group = res.body.data[0]!;
    expect(group.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(group.book_count).toBe(3);
    expect(group.books.map((b) => b.path).sort()).toEqual(['Copies/renamed copy.cbz', 'Saga/Saga 001.cbz', 'Unique/same bytes again.cbz']);
    expect(new Set(group.books.map((b) => b.library.id))).toEqual(new Set([libA, libB]));
    expect(new Set(group.books.map((b) => b.series.id)).size).toBe(3);
    expect(group.books[0]).toMatchObject({ book_id: expect.any(String), title: expect.any(String), size: expect.any(Number) });
  });

  it('series title groups: same normalised title within one library only', async () => {
    const res = await api<Page<SeriesGroup>>(t, 'GET', '/api/v1/duplicates/series?matchType=title');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const group = res.body.data[0]!;
    expect(group).toMatchObject({ match_type: 'title', confidence: 'possible', library_id: libA, match_key: 'amazing spiderman' });
    expect(group.series).toHaveLength(2);
    for (const s of group.series) expect(s).toMatchObject({ library: { id: libA }, book_count: 1, last_updated: expect.any(String) });
  });

  it('series external_id groups: same upstream record across libraries (high confidence)', async () => {
    const seriesA = await t.database.db
      .selectFrom('series')
      .select('id')
      .where('library_id', '=', libA)
      .where('path', '=', 'Saga')
      .executeTakeFirstOrThrow();
    const seriesB = await t.database.db
      .selectFrom('series')
      .select('id')
      .where('library_id', '=', libB)
      .where('path', '=', 'Copies')
      .executeTakeFirstOrThrow();
    // What a metadata fetch records: both series point at the same upstream record.
    await t.database.db
      .updateTable('series')
      .set({ external_id: 'comicvine:4050-12345' })
      .where('id', 'in', [seriesA.id, seriesB.id])
      .execute();
    await runDuplicateScan();
    const res = await api<Page<SeriesGroup>>(t, 'GET', '/api/v1/duplicates/series?matchType=external_id');
    expect(res.body.total).toBe(1);
    expect(res.body.data[0]).toMatchObject({
      match_type: 'external_id',
      confidence: 'high',
      match_key: 'comicvine:4050-12345',
      library_id: null,
    });
    expect(res.body.data[0]!.series.map((s) => s.series_id).sort()).toEqual([seriesA.id, seriesB.id].sort());
    const all = await api<Page<SeriesGroup>>(t, 'GET', '/api/v1/duplicates/series');
    expect(all.body.total).toBe(2);
    expect((await api(t, 'GET', '/api/v1/duplicates/series?matchType=isbn')).status).toBe(400);
  });

  it('deleting a group removes only its record; the next scan recreates it while the duplicates exist', async () => {
    const groups = await api<Page<BookGroup>>(t, 'GET', '/api/v1/duplicates');
    const id = groups.body.data[0]!.id;
    expect((await api(t, 'DELETE', `/api/v1/duplicates/${id}`)).status).toBe(204);
    expect((await api<Page<BookGroup>>(t, 'GET', '/api/v1/duplicates')).body.total).toBe(0);
    const books = await api<{ total: number }>(t, 'GET', `/api/v1/tasks?type=detect_duplicates`);
    expect(books.status).toBe(200);
    expect((await t.database.db.selectFrom('books').select('id').where('deleted_at', 'is', null).execute()).length).toBe(6);
    await runDuplicateScan();
    expect((await api<Page<BookGroup>>(t, 'GET', '/api/v1/duplicates')).body.total).toBe(1);

    const series = await api<Page<SeriesGroup>>(t, 'GET', '/api/v1/duplicates/series?matchType=title');
    const seriesGroup = series.body.data[0]!.id;
    expect((await api(t, 'DELETE', `/api/v1/duplicates/series/${seriesGroup}`)).status).toBe(204);
    expect((await api(t, 'DELETE', `/api/v1/duplicates/series/${seriesGroup}`)).status).toBe(404);
    // a series group id is not a book group
    expect((await api(t, 'DELETE', `/api/v1/duplicates/${series.body.data[0]!.id}`)).status).toBe(404);
  });

  it('a group whose duplicates are gone disappears on the next scan', async () => {
    const { rmSync } = await import('node:fs');
    rmSync(path.join(dirA, 'Unique', 'same bytes again.cbz'));
    rmSync(path.join(dirB, 'Copies', 'renamed copy.cbz'));
    await scan(t, libA);
    await scan(t, libB);
    await runDuplicateScan();
    expect((await api<Page<BookGroup>>(t, 'GET', '/api/v1/duplicates')).body.total).toBe(0);
  });

  it('requires libraries-write', async () => {
    const { createUser } = await import('../helpers/auth.js');
    const reader = await createUser(t, 'reader');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/duplicates', headers: reader.headers });
    expect(res.statusCode).toBe(403);
  });
});
