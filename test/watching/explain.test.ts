import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeImage } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, waitForTask, type CatalogTestApp } from '../scanner/helpers.js';

/** A scan, waited for generously (a busy machine), that must complete. */
async function scan(t: CatalogTestApp, libraryId: string): Promise<void> {
  const res = await api<{ id: string }>(t, 'POST', `/api/v1/libraries/${libraryId}/scan`);
  const done = await waitForTask(t, res.body.id, undefined, 90_000);
  expect(done.status, done.error ?? '').toBe('completed');
}

interface Explanation {
  status: string;
  book_id: string | null;
  sentences: string[];
  rule: { rule: string; glob?: string; extension?: string } | null;
  last_decision: { outcome: string; reason: string; moved_from: string | null; error: string | null } | null;
  fields: { field: string; value: string | null; source: string | null; candidates: { source: string; value: string }[] }[];
  series: { name: string; rule: string; source: string; books: number; votes: { value: string; count: number }[] } | null;
  duplicates: { path: string }[];
}

describe('the scan explainer', { timeout: 60_000 }, () => {
  let t: CatalogTestApp;
  let dir: string;
  let libraryId: string;
  const explainPath = (p: string) => api<Explanation>(t, 'GET', `/api/v1/libraries/${libraryId}/explain?path=${encodeURIComponent(p)}`);
  const bookAt = async (p: string) =>
    (
      await t.database.db
        .selectFrom('books')
        .select('id')
        .where('library_id', '=', libraryId)
        .where('path', '=', p)
        .executeTakeFirstOrThrow()
    ).id;
  const explainBook = (id: string) => api<Explanation>(t, 'GET', `/api/v1/books/${id}/explain`);

  beforeAll(async () => {
    t = await createCatalogApp();
    dir = libraryDir();
    const page = await makeImage({ width: 8, height: 8, format: 'png' });
    const cbz = (folder: string, name: string, comicInfo?: Record<string, string | number>) => {
      mkdirSync(path.join(dir, folder), { recursive: true });
      return makeCbz(path.join(dir, folder), name, {
        pages: [{ name: 'p.png', data: page }],
        store: true,
        ...(comicInfo ? { comicInfo } : {}),
      });
    };
    await cbz('Named', 'whatever 003.cbz', { Title: 'The Real Title', Number: 7, Series: 'Saga' });
    await cbz('Consensus', 'one.cbz', { Series: 'The Agreed', Number: 1 });
    await cbz('Consensus', 'two.cbz', { Series: 'The Agreed', Number: 2 });
    await cbz('Consensus', 'three.cbz', { Title: 'No series here' });
    await cbz('Dup', 'original.cbz', { Title: 'Twin' });
    mkdirSync(path.join(dir, 'Dup2'));
    copyFileSync(path.join(dir, 'Dup', 'original.cbz'), path.join(dir, 'Dup2', 'copy.cbz'));
    await cbz('Moving', 'traveller.cbz', { Title: 'Traveller' });
    await cbz('Comics/extras', 'Bonus.cbz', { Title: 'Bonus' });
    mkdirSync(path.join(dir, 'Broken'));
    writeFileSync(path.join(dir, 'Broken', 'damaged.cbz'), Buffer.from('PK\x03\x04 this is not really a zip archive at all'));
    writeFileSync(path.join(dir, 'Named', 'notes.txt'), 'notes');
    libraryId = (await createLibrary(t, dir, { scanning_config: { exclude: ['**/extras/**'] } })).id;
    await scan(t, libraryId);
    renameSync(path.join(dir, 'Moving'), path.join(dir, 'Moved'));
    await scan(t, libraryId);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  it('an excluded file: not part of the library, by which glob', async () => {
    const res = await explainPath('Comics/extras/Bonus.cbz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'excluded', book_id: null, rule: { rule: 'excluded', glob: '**/extras/**' } });
    expect(res.body.sentences.join(' ')).toContain('excluded by `**/extras/**`');
  });

  it('an unsupported file, and a path where nothing is', async () => {
    const res = await explainPath(path.join(dir, 'Named', 'notes.txt'));
    expect(res.body).toMatchObject({ status: 'unsupported', rule: { rule: 'unsupported_extension', extension: '.txt' } });
    expect((await explainPath('Nowhere/ghost.cbz')).body.status).toBe('missing');
    expect((await explainPath('../outside.cbz')).status).toBe(400);
  });

  it('a book named by ComicInfo: each field with its source and the other sources’ values', async () => {
    const res = await explainBook(await bookAt('Named/whatever 003.cbz'));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('book');
    const title = res.body.fields.find((f) => f.field === 'title')!;
    expect(title).toMatchObject({ value: 'The Real Title', source: 'comicinfo' });
    expect(title.candidates).toContainEqual({ source: 'filename', value: 'whatever 003' });
    expect(res.body.fields.find((f) => f.field === 'number')).toMatchObject({ value: '7', source: 'comicinfo' });
    expect(res.body.last_decision).toMatchObject({ outcome: 'added', reason: 'new_file' });
    expect(res.body.sentences.join(' ')).toContain('Title “The Real Title” from ComicInfo.xml');
  });

  it('a series named by consensus of its books', async () => {
    const res = await explainBook(await bookAt('Consensus/three.cbz'));
    expect(res.body.series).toMatchObject({ name: 'The Agreed', rule: 'stated', source: 'comicinfo', books: 3 });
    expect(res.body.series!.votes).toContainEqual({ value: 'The Agreed', source: 'comicinfo', count: 2 });
    expect(res.body.sentences.join(' ')).toContain('consensus of 2 of 3 books');
  });

  it('a moved book: from where, kept by its hash; the old path says where it went', async () => {
    const id = await bookAt('Moved/traveller.cbz');
    const res = await explainBook(id);
    expect(res.body.last_decision).toMatchObject({ outcome: 'moved', reason: 'same_hash', moved_from: 'Moving/traveller.cbz' });
    const old = await explainPath('Moving/traveller.cbz');
    expect(old.body).toMatchObject({ status: 'missing', last_decision: { outcome: 'moved_away' } });
  });

  it('a duplicate names the other file with the same content', async () => {
    const res = await explainBook(await bookAt('Dup2/copy.cbz'));
    expect(res.body.duplicates.map((d) => d.path)).toEqual(['Dup/original.cbz']);
  });

  it('a damaged archive: failed, with the error', async () => {
    const res = await explainPath('Broken/damaged.cbz');
    expect(res.body.status).toBe('book');
    expect(res.body.last_decision).toMatchObject({ outcome: 'failed', reason: 'new_file' });
    expect(res.body.last_decision!.error).toBeTruthy();
    expect(res.body.sentences.join(' ')).toContain('Analysis failed');
  });

  it('an unknown book or library is a 404', async () => {
    expect((await explainBook('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api(t, 'GET', `/api/v1/libraries/00000000-0000-4000-8000-000000000000/explain?path=a.cbz`)).status).toBe(404);
  });
});
