import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../src/events/types.js';
import { makeCbz, makeEpub, makePdf, makeZeroByteFile, truncateCopy } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function books(libraryId: string) {
  const rows = await t.database.db.selectFrom('books').selectAll().where('library_id', '=', libraryId).orderBy('path').execute();
  return rows.map((r) => ({ ...r, size: Number(r.size), mtime_ms: Number(r.mtime_ms) }));
}
async function series(libraryId: string) {
  return t.database.db.selectFrom('series').selectAll().where('library_id', '=', libraryId).orderBy('path').execute();
}
async function adminId(): Promise<string> {
  return (await t.database.db.selectFrom('users').select('id').where('role', '=', 'admin').executeTakeFirstOrThrow()).id;
}
async function addProgress(bookId: string, page: number): Promise<void> {
  const now = new Date().toISOString();
  await t.database.db
    .insertInto('read_progress')
    .values({
      user_id: await adminId(),
      book_id: bookId,
      current_page: page,
      is_completed: 0,
      started_at: now,
      updated_at: now,
      completed_at: null,
      device_id: null,
    })
    .execute();
}
async function progressOf(bookId: string) {
  return t.database.db.selectFrom('read_progress').select(['current_page', 'book_id']).where('book_id', '=', bookId).execute();
}
const present = <T extends { deleted_at: string | null }>(rows: T[]) => rows.filter((r) => r.deleted_at === null);

/** Records entity and scan events of one library while `fn` runs. */
async function recordEvents(
  libraryId: string,
  fn: () => Promise<unknown>,
): Promise<Array<{ name: EventName; payload: Record<string, unknown> }>> {
  const seen: Array<{ name: EventName; payload: Record<string, unknown> }> = [];
  const off = t.app.events.onAny((name, payload) => {
    // Entity and scan events of the library (a task's progress names its library too, for who may hear it).
    if (name !== 'task_progress' && (payload as { library_id?: string }).library_id === libraryId)
      seen.push({ name, payload: payload as unknown as Record<string, unknown> });
  });
  try {
    await fn();
  } finally {
    off();
  }
  return seen;
}

describe('Scanning: a folder that contains books becomes a series; nested folders are their own series; loose root files', () => {
  let dir: string;
  let libraryId: string;

  beforeAll(async () => {
    dir = libraryDir();
    await makeCbz(dir, 'Batman/Batman 001.cbz', {
      pages: 3,
      comicInfo: { Series: 'Batman', Number: 1, Title: 'The Court of Owls', Year: 2011, Publisher: 'DC Comics', Genre: 'Superhero' },
    });
    await makeCbz(dir, 'Batman/Batman 002.cbz', { pages: 2, comicInfo: { Series: 'Batman', Number: 2, Year: 2012 } });
    await makeCbz(dir, 'Manga/One Piece/One Piece v01.cbz', { pages: 2 });
    await makeCbz(dir, 'Manga/One Piece/Extras/Extras 01.cbz', { pages: 1 });
    await makeCbz(dir, 'Manga/ワンピース 日本語/ワンピース 第01巻.cbz', { pages: 1 });
    await makePdf(dir, 'Docs/Manual.pdf', { pages: 2, info: { Title: 'The Manual' } });
    await makeEpub(dir, 'Standalone Novel.epub', { metadata: { title: 'A Standalone Novel', series: 'Novels', seriesIndex: '1' } });
    await makeCbz(dir, 'Loose Comic 003.cbz', { pages: 1 });
    await writeFile(path.join(dir, 'notes.txt'), 'not a book');
    await mkdir(path.join(dir, '.hidden'));
    await makeCbz(dir, '.hidden/Hidden 01.cbz', { pages: 1 });
    libraryId = (await createLibrary(t, dir)).id;
  });

  it('creates the expected series and books, with hash, size, format, page count, page list and metadata', async () => {
    let task;
    const events = await recordEvents(libraryId, async () => {
      task = await scan(t, libraryId);
    });
    expect(task!.task_type).toBe('scan_library');
    expect(task!.result).toMatchObject({
      files_discovered: 8,
      files_processed: 8,
      series_created: 7,
      books_added: 8,
      books_updated: 0,
      books_deleted: 0,
      books_restored: 0,
      errors: 0,
    });

    const s = await series(libraryId);
    expect(s.map((x) => [x.path, x.name, x.book_count])).toEqual([
      ['Batman', 'Batman', 2],
      ['Docs', 'Docs', 1],
      ['Loose Comic 003.cbz', 'Loose Comic', 1],
      ['Manga/One Piece', 'One Piece', 1],
      ['Manga/One Piece/Extras', 'Extras', 1],
      ['Manga/ワンピース 日本語', 'ワンピース 日本語', 1],
      ['Standalone Novel.epub', 'Novels', 1],
    ]);
    const batman = s.find((x) => x.path === 'Batman')!;
    expect(batman).toMatchObject({ publisher: 'DC Comics', year: 2011, deleted_at: null });
    expect(JSON.parse(batman.genres)).toEqual(['Superhero']);

    const b = await books(libraryId);
    expect(b.map((x) => x.path)).toEqual([
      'Batman/Batman 001.cbz',
      'Batman/Batman 002.cbz',
      'Docs/Manual.pdf',
      'Loose Comic 003.cbz',
      'Manga/One Piece/Extras/Extras 01.cbz',
      'Manga/One Piece/One Piece v01.cbz',
      'Manga/ワンピース 日本語/ワンピース 第01巻.cbz',
      'Standalone Novel.epub',
    ]);
    const first = b[0]!;
    expect(first).toMatchObject({
      series_id: batman.id,
      file_name: 'Batman 001.cbz',
      format: 'cbz',
      page_count: 3,
      title: 'The Court of Owls',
      number: '1',
      number_sort: 1,
      year: 2011,
      analysis_error: null,
    });
    expect(first.hash).toBe(sha256(path.join(dir, first.path)));
    expect(first.size).toBe(readFileSync(path.join(dir, first.path)).length);
    const pages = JSON.parse(first.pages) as Array<Record<string, unknown>>;
    expect(pages).toHaveLength(3);
    expect(pages[0]).toMatchObject({ number: 1, file_name: 'page001.jpg', media_type: 'image/jpeg', width: 600, height: 900 });
    expect(b.find((x) => x.path === 'Docs/Manual.pdf')).toMatchObject({ format: 'pdf', title: 'The Manual', page_count: 2 });
    expect(b.find((x) => x.path === 'Standalone Novel.epub')).toMatchObject({ format: 'epub', title: 'A Standalone Novel' });

    const names = events.map((e) => e.name);
    expect(names.filter((n) => n === 'series_created')).toHaveLength(7);
    expect(names.filter((n) => n === 'book_created')).toHaveLength(8);
    expect(names[0]).toBe('scan_started');
    expect(names.at(-1)).toBe('scan_completed');
    const created = events.find((e) => e.name === 'book_created')!.payload;
    expect(Object.keys(created).sort()).toEqual(['book_id', 'library_id', 'series_id', 'timestamp', 'type']);
    expect(events.find((e) => e.name === 'scan_completed')!.payload).toMatchObject({
      files_discovered: 8,
      files_processed: 8,
      series_created: 7,
      books_added: 8,
      errors: 0,
    });
  });

  it('a normal rescan of an unchanged tree changes nothing (ids and timestamps equal)', async () => {
    const beforeBooks = await books(libraryId);
    const beforeSeries = await series(libraryId);
    let task;
    const events = await recordEvents(libraryId, async () => {
      task = await scan(t, libraryId, 'normal');
    });
    expect(task!.result).toMatchObject({
      files_discovered: 8,
      files_processed: 8,
      series_created: 0,
      books_added: 0,
      books_updated: 0,
      books_deleted: 0,
      books_restored: 0,
      errors: 0,
    });
    expect(await books(libraryId)).toEqual(beforeBooks);
    expect(await series(libraryId)).toEqual(beforeSeries);
    // Only the library itself changed: its last_scanned_at.
    expect(events.filter((e) => !e.name.startsWith('scan_')).map((e) => e.name)).toEqual(['library_updated']);
    // Every file skipped as unchanged is counted as such, in the result and in the scan's event stream.
    expect(task!.result).toMatchObject({ books_unchanged: 8 });
    expect(events.find((e) => e.name === 'scan_completed')?.payload).toMatchObject({ books_unchanged: 8, files_processed: 8 });
  });

  it('a deep rescan re-processes every file but writes nothing when nothing changed', async () => {
    const beforeBooks = await books(libraryId);
    const task = await scan(t, libraryId, 'deep');
    expect(task.result).toMatchObject({ files_processed: 8, books_added: 0, books_updated: 0, books_unchanged: 8, errors: 0 });
    expect((await books(libraryId)).map((b) => [b.id, b.updated_at])).toEqual(beforeBooks.map((b) => [b.id, b.updated_at]));
  });

  it('normal mode trusts unchanged files; deep mode reads every file again and updates what differs', async () => {
    const target = (await books(libraryId)).find((b) => b.path === 'Batman/Batman 001.cbz')!;
    // Stored metadata that no longer matches the file, as after an older analyser or a hand edit of the database.
    await t.database.db.updateTable('books').set({ title: 'Stale title', page_count: 99 }).where('id', '=', target.id).execute();

    const normal = await scan(t, libraryId, 'normal');
    expect(normal.result).toMatchObject({ books_updated: 0, books_unchanged: 8 });
    expect((await books(libraryId)).find((b) => b.id === target.id)).toMatchObject({ title: 'Stale title', page_count: 99 });

    const deep = await scan(t, libraryId, 'deep');
    expect(deep.result).toMatchObject({ books_updated: 1, books_unchanged: 7, errors: 0 });
    expect((await books(libraryId)).find((b) => b.id === target.id)).toMatchObject({ title: 'The Court of Owls', page_count: 3 });
  });

  it('normal mode re-analyses a changed file: same id, new hash, book_updated and cover_updated', async () => {
    const before = (await books(libraryId)).find((b) => b.path === 'Batman/Batman 002.cbz')!;
    await makeCbz(dir, 'Batman/Batman 002.cbz', { pages: 4, comicInfo: { Series: 'Batman', Number: 2, Title: 'New Title' } });
    let task;
    const events = await recordEvents(libraryId, async () => {
      task = await scan(t, libraryId);
    });
    expect(task!.result).toMatchObject({ books_updated: 1, books_added: 0 });
    const after = (await books(libraryId)).find((b) => b.path === 'Batman/Batman 002.cbz')!;
    expect(after.id).toBe(before.id);
    expect(after.hash).not.toBe(before.hash);
    expect(after).toMatchObject({ page_count: 4, title: 'New Title' });
    expect(events.map((e) => e.name)).toEqual(expect.arrayContaining(['book_updated', 'cover_updated']));
  });
});

describe('Book file lifecycle: present → soft-deleted → restored; move by hash keeps id and metadata; purge', () => {
  let dir: string;
  let libraryId: string;
  beforeAll(async () => {
    dir = libraryDir();
    await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 1, comicInfo: { Series: 'Saga', Number: 1 } });
    await makeCbz(dir, 'Saga/Saga 002.cbz', { pages: 2, comicInfo: { Series: 'Saga', Number: 2 } });
    await makeCbz(dir, 'Solo/Solo 01.cbz', { pages: 1 });
    libraryId = (await createLibrary(t, dir)).id;
    await scan(t, libraryId);
  });

  it('a missing file is soft-deleted (hidden, row kept); a series left without present books is soft-deleted too', async () => {
    const before = await books(libraryId);
    await rename(path.join(dir, 'Solo/Solo 01.cbz'), path.join(dir, '..', 'Solo 01.cbz.away'));
    let task;
    const events = await recordEvents(libraryId, async () => {
      task = await scan(t, libraryId);
    });
    expect(task!.result).toMatchObject({ books_deleted: 1, books_added: 0 });
    const solo = (await books(libraryId)).find((b) => b.path === 'Solo/Solo 01.cbz')!;
    expect(solo.id).toBe(before.find((b) => b.path === 'Solo/Solo 01.cbz')!.id);
    expect(solo.deleted_at).not.toBeNull();
    const soloSeries = (await series(libraryId)).find((s) => s.path === 'Solo')!;
    expect(soloSeries.deleted_at).not.toBeNull();
    expect(events.map((e) => e.name)).toEqual(expect.arrayContaining(['book_deleted', 'series_deleted']));
    const lib = await api(t, 'GET', `/api/v1/libraries/${libraryId}`);
    expect(lib.body).toMatchObject({ book_count: 2, series_count: 1 });
  });

  it('when the file returns it is restored with the same id (and its series with it)', async () => {
    const deleted = (await books(libraryId)).find((b) => b.path === 'Solo/Solo 01.cbz')!;
    await rename(path.join(dir, '..', 'Solo 01.cbz.away'), path.join(dir, 'Solo/Solo 01.cbz'));
    const task = await scan(t, libraryId);
    expect(task.result).toMatchObject({ books_restored: 1, books_added: 0, books_deleted: 0 });
    const restored = (await books(libraryId)).find((b) => b.path === 'Solo/Solo 01.cbz')!;
    expect(restored).toMatchObject({ id: deleted.id, deleted_at: null, hash: deleted.hash });
    expect((await series(libraryId)).find((s) => s.path === 'Solo')).toMatchObject({ deleted_at: null, book_count: 1 });
  });

  it('a file with the same hash at a new path is recognised as a move: same id, metadata kept, new series', async () => {
    const before = (await books(libraryId)).find((b) => b.path === 'Saga/Saga 002.cbz')!;
    // Metadata edited in the catalog (as a metadata tool would) and reading progress must survive the move.
    await t.database.db.updateTable('books').set({ summary: 'kept through the move' }).where('id', '=', before.id).execute();
    await addProgress(before.id, 2);
    await mkdir(path.join(dir, 'Saga Archive'), { recursive: true });
    await rename(path.join(dir, 'Saga/Saga 002.cbz'), path.join(dir, 'Saga Archive/Saga 002 (moved).cbz'));
    const task = await scan(t, libraryId);
    expect(task.result).toMatchObject({ books_added: 0, books_deleted: 0, books_updated: 1, series_created: 1 });
    const all = await books(libraryId);
    expect(all.filter((b) => b.id === before.id)).toHaveLength(1);
    const moved = all.find((b) => b.id === before.id)!;
    expect(moved).toMatchObject({
      path: 'Saga Archive/Saga 002 (moved).cbz',
      file_name: 'Saga 002 (moved).cbz',
      deleted_at: null,
      summary: 'kept through the move',
      hash: before.hash,
    });
    const archive = (await series(libraryId)).find((s) => s.path === 'Saga Archive')!;
    expect(moved.series_id).toBe(archive.id);
    expect((await series(libraryId)).find((s) => s.path === 'Saga')).toMatchObject({ book_count: 1, deleted_at: null });
    expect(await progressOf(before.id)).toEqual([{ book_id: before.id, current_page: 2 }]);
  });

  it('a soft-deleted book whose file comes back elsewhere (same hash) is restored by the move', async () => {
    const solo = (await books(libraryId)).find((b) => b.path === 'Solo/Solo 01.cbz')!;
    await rename(path.join(dir, 'Solo/Solo 01.cbz'), path.join(dir, '..', 'solo.tmp'));
    await scan(t, libraryId);
    expect((await books(libraryId)).find((b) => b.id === solo.id)!.deleted_at).not.toBeNull();
    await rename(path.join(dir, '..', 'solo.tmp'), path.join(dir, 'Solo 01 again.cbz'));
    const task = await scan(t, libraryId);
    expect(task.result).toMatchObject({ books_restored: 1, books_added: 0 });
    expect((await books(libraryId)).find((b) => b.id === solo.id)).toMatchObject({ path: 'Solo 01 again.cbz', deleted_at: null });
  });

  it('DELETE /libraries/{id}/purge-deleted removes soft-deleted books and emptied series for good', async () => {
    const saga1 = (await books(libraryId)).find((b) => b.path === 'Saga/Saga 001.cbz')!;
    await addProgress(saga1.id, 1);
    const now = new Date().toISOString();
    await t.database.db
      .insertInto('read_throughs')
      .values({
        id: crypto.randomUUID(),
        user_id: await adminId(),
        book_id: saga1.id,
        series_id: saga1.series_id,
        library_id: libraryId,
        book_title: saga1.title,
        series_name: 'Saga',
        page_count: 1,
        started_at: now,
        completed_at: now,
        device_id: 'test',
      })
      .execute();
    await rm(path.join(dir, 'Saga/Saga 001.cbz'));
    await scan(t, libraryId);
    const deleted = (await books(libraryId)).filter((b) => b.deleted_at !== null);
    expect(deleted.map((b) => b.path)).toEqual(['Saga/Saga 001.cbz']);
    // Soft-deleted: progress kept.
    expect(await progressOf(saga1.id)).toHaveLength(1);
    const res = await api(t, 'DELETE', `/api/v1/libraries/${libraryId}/purge-deleted`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ library_id: libraryId, books_purged: 1, series_purged: 2 });
    expect((await books(libraryId)).map((b) => b.path).sort()).toEqual(['Saga Archive/Saga 002 (moved).cbz', 'Solo 01 again.cbz']);
    expect(
      present(await series(libraryId))
        .map((s) => s.path)
        .sort(),
    ).toEqual(['Saga Archive', 'Solo 01 again.cbz']);
    expect((await series(libraryId)).every((s) => s.deleted_at === null)).toBe(true);
    // Purged: the current progress goes with the book; finished read-throughs stay in statistics.
    expect(await progressOf(saga1.id)).toEqual([]);
    expect(await t.database.db.selectFrom('read_throughs').select('book_title').where('book_id', '=', saga1.id).execute()).toEqual([
      { book_title: saga1.title },
    ]);
    expect((await api(t, 'DELETE', `/api/v1/libraries/0190a0a0-0000-7000-8000-000000000000/purge-deleted`)).status).toBe(404);
  });
});

describe('Unreadable files become books with an error instead of stopping the scan', () => {
  it('corrupt and zero-byte files are recorded with analysis_error and a hash; the scan completes', async () => {
    const dir = libraryDir();
    const good = await makeCbz(dir, 'Mixed/Good 01.cbz', { pages: 2 });
    await truncateCopy(good, path.join(dir, 'Mixed/Corrupt 02.cbz'), 200);
    await makeZeroByteFile(dir, 'Mixed/Empty 03.cbz');
    await writeFile(path.join(dir, 'Mixed/Garbage 04.pdf'), 'this is not a pdf at all');
    const libraryId = (await createLibrary(t, dir)).id;
    const task = await scan(t, libraryId);
    expect(task.result).toMatchObject({ files_discovered: 4, files_processed: 4, books_added: 4, errors: 3 });
    const rows = await books(libraryId);
    const byName = Object.fromEntries(rows.map((b) => [b.file_name, b]));
    expect(byName['Good 01.cbz']).toMatchObject({ analysis_error: null, page_count: 2 });
    for (const name of ['Corrupt 02.cbz', 'Empty 03.cbz', 'Garbage 04.pdf']) {
      expect(byName[name]!.analysis_error, name).toEqual(expect.any(String));
      expect(byName[name]!.page_count).toBe(0);
      expect(byName[name]!.hash).toBe(sha256(path.join(dir, 'Mixed', name)));
    }
    expect(byName['Empty 03.cbz']!.hash).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // Fixed later: a normal scan picks the change up and clears the error.
    await copyFile(good, path.join(dir, 'Mixed/Empty 03.cbz'));
    await utimes(path.join(dir, 'Mixed/Empty 03.cbz'), new Date(), new Date(Date.now() + 5000));
    await scan(t, libraryId);
    expect((await books(libraryId)).find((b) => b.file_name === 'Empty 03.cbz')).toMatchObject({ analysis_error: null, page_count: 2 });
  });
});
