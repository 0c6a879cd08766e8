import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeImage } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { addInbox, inboxDir, waitForItems, type Item } from './helpers.js';

/**
 * The inbox end to end on the engine under test, with real files: messy names in, a review queue out, everything
 * filed where the template says, in the right series, with a moved book's progress.
 */
describe('the inbox: 20 books with messy names', { timeout: 180_000 }, () => {
  let t: CatalogTestApp;
  let lib: string;
  let other: string;
  let libraryId: string;
  let otherId: string;
  let inbox: string;
  let movedBookId: string;
  let page: Buffer;

  const book = (dir: string, name: string, comicInfo?: Record<string, string | number>, seed = name) =>
    makeCbz(dir, name, {
      pages: [
        { name: 'p.png', data: page },
        { name: 'q.txt.png', data: Buffer.concat([page, Buffer.from(seed)]) },
      ],
      store: true,
      ...(comicInfo ? { comicInfo } : {}),
    });

  beforeAll(async () => {
    t = await createCatalogApp({ inbox: { quiet_seconds: 0.3, check_seconds: 1 } });
    page = await makeImage({ width: 8, height: 8, format: 'png' });
    lib = libraryDir();
    mkdirSync(path.join(lib, 'Saga'));
    await book(path.join(lib, 'Saga'), 'Saga #001.cbz', { Series: 'Saga', Number: 1 });
    libraryId = (await createLibrary(t, lib)).id;
    await scan(t, libraryId);
    // A book in another library, read to page 2 by the admin, whose file then goes to the inbox.
    other = libraryDir();
    mkdirSync(path.join(other, 'Loose'));
    await book(path.join(other, 'Loose'), 'Batman 001.cbz', { Series: 'Batman', Number: 1 }, 'moved');
    otherId = (await createLibrary(t, other)).id;
    await scan(t, otherId);
    movedBookId = (await t.database.db.selectFrom('books').select('id').where('library_id', '=', otherId).executeTakeFirstOrThrow()).id;
    const progress = await api(t, 'PUT', `/api/v1/books/${movedBookId}/progress`, { current_page: 2 });
    expect(progress.status, JSON.stringify(progress.body)).toBeLessThan(300);

    inbox = inboxDir();
    await addInbox(t, inbox, libraryId);
    // 20 files: Saga issues with the names rippers give, One Piece volumes (a new series), Batman by its ComicInfo
    // under a scanner's file names (one of them the moved book), and a folder of Dorohedoro chapters.
    const saga = [
      'Saga #002 (2012) (Digital) (Zone-Empire).cbz',
      'Saga 003 (2012).cbz',
      'saga_004.cbz',
      'Saga - 005.cbz',
      'Saga #006 (of 54) (2012).cbz',
      'Saga 007 [HD].cbz',
      'SAGA 008.cbz',
    ];
    for (const name of saga) await book(inbox, name);
    for (const v of [1, 2, 3, 4, 5, 6]) await book(inbox, `One Piece v0${v} (2003) (Digital).cbz`);
    for (const n of [2, 3, 4]) await book(inbox, `scan_${String(n).padStart(4, '0')}.cbz`, { Series: 'Batman', Number: n, Year: 2016 });
    renameSync(path.join(other, 'Loose', 'Batman 001.cbz'), path.join(inbox, 'IMG_0001.cbz'));
    mkdirSync(path.join(inbox, 'Dorohedoro'));
    for (const c of [1, 2, 3]) await book(path.join(inbox, 'Dorohedoro'), `Dorohedoro c00${c}.cbz`);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  let items: Item[];

  it('20 review items, each with its series, the template name and the reasons', async () => {
    items = await waitForItems(t, (all) => all.length >= 20, '20 items');
    expect(items).toHaveLength(20);
    const byName = new Map(items.map((i) => [i.file_name, i]));
    expect(items.filter((i) => i.status !== 'review').map((i) => [i.file_name, i.status, i.reasons])).toEqual([]);
    const sagaId = (await t.database.db.selectFrom('series').select('id').where('library_id', '=', libraryId).executeTakeFirstOrThrow()).id;
    expect(byName.get('Saga #002 (2012) (Digital) (Zone-Empire).cbz')).toMatchObject({
      proposed_series: 'Saga',
      series_id: sagaId,
      number: '2',
      proposed_path: 'Saga/Saga #002 (2012).cbz',
    });
    expect(byName.get('saga_004.cbz')).toMatchObject({ series_id: sagaId, proposed_path: 'Saga/Saga #004.cbz' });
    expect(byName.get('SAGA 008.cbz')).toMatchObject({ series_id: sagaId, proposed_path: 'Saga/Saga #008.cbz' });
    expect(byName.get('One Piece v03 (2003) (Digital).cbz')).toMatchObject({
      proposed_series: 'One Piece',
      series_id: null,
      volume: 3,
      proposed_path: 'One Piece/One Piece v03 (2003).cbz',
    });
    expect(byName.get('scan_0003.cbz')).toMatchObject({ proposed_series: 'Batman', proposed_path: 'Batman/Batman #003 (2016).cbz' });
    expect(byName.get('IMG_0001.cbz')).toMatchObject({
      proposed_series: 'Batman',
      moved_from: movedBookId,
      proposed_path: 'Batman/Batman #001.cbz',
    });
    expect(byName.get('Dorohedoro c002.cbz')).toMatchObject({
      proposed_series: 'Dorohedoro',
      proposed_path: 'Dorohedoro/Dorohedoro #002.cbz',
    });
    const sagaReasons = byName.get('Saga 003 (2012).cbz')!.reasons.join(' ');
    expect(sagaReasons).toContain('read from the file name');
    expect(sagaReasons).toContain('matches the series "Saga" already in the library');
    expect(byName.get('scan_0002.cbz')!.reasons.join(' ')).toContain('ComicInfo.xml');
    expect(byName.get('One Piece v01 (2003) (Digital).cbz')!.reasons.join(' ')).toContain('a new series is proposed');
    // Nothing of the inbox is in the catalog yet.
    const books = await t.database.db.selectFrom('books').select('path').where('library_id', '=', libraryId).execute();
    expect(books.map((b) => b.path)).toEqual(['Saga/Saga #001.cbz']);
  });

  it('accepted all at once: 20 books in their series, named by the template, the moved book with its progress', async () => {
    const res = await api<{ data: Array<{ id: string; item: Item | null; error: unknown }> }>(t, 'POST', '/api/v1/inbox/items/accept', {
      ids: items.map((i) => i.id),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.filter((r) => r.error !== null)).toEqual([]);
    const filed = await waitForItems(
      t,
      (all) => all.filter((i) => i.status === 'filed' && i.book_id !== null).length === 20,
      'all filed as books',
      90_000,
    );
    const books = await t.database.db
      .selectFrom('books')
      .innerJoin('series', 'series.id', 'books.series_id')
      .select(['books.id', 'books.path', 'series.name as series'])
      .where('books.library_id', '=', libraryId)
      .where('books.deleted_at', 'is', null)
      .execute();
    expect(books).toHaveLength(21);
    const series = new Map<string, number>();
    for (const b of books) series.set(b.series, (series.get(b.series) ?? 0) + 1);
    expect(Object.fromEntries(series)).toEqual({ Saga: 8, 'One Piece': 6, Batman: 4, Dorohedoro: 3 });
    for (const item of filed) expect(books.find((b) => b.id === item.book_id)?.path).toBe(item.proposed_path);
    expect(readdirSync(path.join(lib, 'One Piece')).sort()).toEqual([1, 2, 3, 4, 5, 6].map((v) => `One Piece v0${v} (2003).cbz`));
    // The inbox is empty (no file was copied and left behind).
    expect(readdirSync(inbox).filter((f) => f !== 'Dorohedoro')).toEqual([]);
    const moved = filed.find((i) => i.file_name === 'IMG_0001.cbz')!;
    const progress = await api<{ current_page: number }>(t, 'GET', `/api/v1/books/${moved.book_id}/progress`);
    expect(progress.status).toBe(200);
    expect(progress.body.current_page).toBe(2);
  });

  it('a name clash is a review item, never an overwrite; renamed, it files', async () => {
    await book(inbox, 'Saga 002 (2012).cbz', undefined, 'a different scan of 2');
    // Number 2 is in the series now: a duplicate by number (an upgrade?) — kept both under a name given by hand.
    const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'Saga 002 (2012).cbz'), 'the second #2')).filter(
      (i) => i.file_name === 'Saga 002 (2012).cbz',
    );
    expect(item!.status).toBe('duplicate');
    const patched = await api<Item>(t, 'PATCH', `/api/v1/inbox/items/${item!.id}`, { proposed_path: 'Saga/Saga #002 (2012).cbz' });
    expect(patched.status).toBe(200);
    const clash = await api<{ message: string }>(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`, { duplicate: 'keep_both' });
    expect(clash.status).toBe(409);
    expect((await api<Item>(t, 'GET', `/api/v1/inbox/items/${item!.id}`)).body.status).toBe('clash');
    const renamed = await api<Item>(t, 'PATCH', `/api/v1/inbox/items/${item!.id}`, {
      proposed_path: 'Saga/Saga #002 (2012) (second scan).cbz',
    });
    expect(renamed.body.status).toBe('duplicate');
    const accepted = await api<Item>(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`, { duplicate: 'keep_both' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(existsSync(path.join(lib, 'Saga', 'Saga #002 (2012) (second scan).cbz'))).toBe(true);
  });

  it('a duplicate: the same file again is flagged with the book it duplicates, and rejected into the rejected folder', async () => {
    copyFileSync(path.join(lib, 'Saga', 'Saga #001.cbz'), path.join(inbox, 'saga one again.cbz'));
    const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'saga one again.cbz'), 'the copy')).filter(
      (i) => i.file_name === 'saga one again.cbz',
    );
    expect(item!.status, JSON.stringify(item)).toBe('duplicate');
    const original = await t.database.db
      .selectFrom('books')
      .select('id')
      .where('path', '=', 'Saga/Saga #001.cbz')
      .executeTakeFirstOrThrow();
    expect(item!.duplicate_of).toBe(original.id);
    expect((await api(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`)).status).toBe(409);
    const rejected = await api<Item>(t, 'POST', `/api/v1/inbox/items/${item!.id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    expect(existsSync(path.join(inbox, 'rejected', 'saga one again.cbz'))).toBe(true);
  });

  it('a damaged archive and an unsupported file are reported with the reason and not filed', async () => {
    writeFileSync(path.join(inbox, 'broken.cbz'), Buffer.from('PK\x03\x04 this is not really a zip archive at all'));
    writeFileSync(path.join(inbox, 'notes.docx'), 'not a book');
    const all = await waitForItems(
      t,
      (list) => ['broken.cbz', 'notes.docx'].every((n) => list.some((i) => i.file_name === n)),
      'damaged items',
    );
    for (const name of ['broken.cbz', 'notes.docx']) {
      const item = all.find((i) => i.file_name === name)!;
      expect(item.status).toBe('damaged');
      expect(item.problem).toBeTruthy();
      const res = await api<{ message: string }>(t, 'POST', `/api/v1/inbox/items/${item.id}/accept`);
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.message).toContain('damaged');
    }
    expect(all.find((i) => i.file_name === 'notes.docx')!.problem).toContain('.docx');
  });
});
