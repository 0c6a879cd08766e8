import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, nowIso } from '../../src/db/ids.js';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';

/**
 * Scans make shared lists from ComicInfo: a collection per SeriesGroup name, a read list per StoryArc (and
 * AlternateSeries) name. The lists API is another feature's: these tests read the tables. Lists are shared by
 * every library of the database, so each test uses names of its own.
 */
let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

const db = () => t.database.db;

async function collection(name: string) {
  const list = await db().selectFrom('collections').selectAll().where('name_key', '=', name.toLowerCase()).execute();
  if (list.length === 0) return undefined;
  expect(list).toHaveLength(1);
  const members = await db()
    .selectFrom('collection_series as cs')
    .innerJoin('series as s', 's.id', 'cs.series_id')
    .select('s.name')
    .where('cs.collection_id', '=', list[0]!.id)
    .orderBy('cs.position')
    .execute();
  return { ...list[0]!, edited: Number(list[0]!.edited), series: members.map((m) => m.name) };
}

async function readList(name: string) {
  const list = await db().selectFrom('read_lists').selectAll().where('name_key', '=', name.toLowerCase()).execute();
  if (list.length === 0) return undefined;
  expect(list).toHaveLength(1);
  const items = await db()
    .selectFrom('read_list_items as i')
    .leftJoin('books as b', 'b.id', 'i.book_id')
    .select(['i.id', 'b.file_name'])
    .where('i.read_list_id', '=', list[0]!.id)
    .orderBy('i.position')
    .execute();
  return { ...list[0]!, edited: Number(list[0]!.edited), books: items.map((i) => i.file_name), itemIds: items.map((i) => i.id) };
}

describe('Scan: ComicInfo SeriesGroup makes shared collections, StoryArc/StoryArcNumber and AlternateSeries make shared read lists', () => {
  let dir: string;
  let libraryId: string;

  beforeAll(async () => {
    dir = libraryDir();
    await makeCbz(dir, 'Batman/Batman 001.cbz', {
      pages: 1,
      comicInfo: {
        Series: 'Batman',
        Number: 1,
        SeriesGroup: 'Bat Family, Gotham',
        StoryArc: 'Court of Owls, Night of Owls',
        StoryArcNumber: '2, 5',
      },
    });
    await makeCbz(dir, 'Batman/Batman 002.cbz', {
      pages: 1,
      comicInfo: { Series: 'Batman', Number: 2, SeriesGroup: 'Bat Family', StoryArc: 'Court of Owls', StoryArcNumber: '1' },
    });
    await makeCbz(dir, 'Nightwing/Nightwing 001.cbz', {
      pages: 1,
      comicInfo: {
        Series: 'Nightwing',
        Number: 1,
        SeriesGroup: 'bat family',
        StoryArc: 'Night of Owls',
        StoryArcNumber: '1',
        AlternateSeries: 'Owls Crossover',
        AlternateNumber: '3',
      },
    });
    libraryId = (await createLibrary(t, dir)).id;
    await scan(t, libraryId);
  });

  it('a collection per SeriesGroup name (case aside) holds the series whose books carry it', async () => {
    const family = await collection('Bat Family');
    expect(family).toMatchObject({
      name: 'Bat Family',
      owner_user_id: null,
      source: 'comicinfo',
      edited: 0,
      series: ['Batman', 'Nightwing'],
    });
    expect(await collection('Gotham')).toMatchObject({ series: ['Batman'] });
  });

  it('a read list per StoryArc holds its books in StoryArcNumber order; AlternateSeries/AlternateNumber is one more', async () => {
    expect(await readList('Court of Owls')).toMatchObject({
      owner_user_id: null,
      source: 'comicinfo',
      edited: 0,
      books: ['Batman 002.cbz', 'Batman 001.cbz'],
    });
    expect(await readList('Night of Owls')).toMatchObject({ books: ['Nightwing 001.cbz', 'Batman 001.cbz'] });
    expect(await readList('Owls Crossover')).toMatchObject({ source: 'comicinfo', books: ['Nightwing 001.cbz'] });
  });

  it('a rescan with nothing changed changes nothing (same rows, same updated_at, same entry ids)', async () => {
    const before = [await collection('Bat Family'), await readList('Court of Owls'), await readList('Night of Owls')];
    await scan(t, libraryId);
    expect([await collection('Bat Family'), await readList('Court of Owls'), await readList('Night of Owls')]).toEqual(before);
  });

  it('a book gone from disk leaves its lists; a list no book names any more goes; a new book joins; other libraries count too', async () => {
    await rm(path.join(dir, 'Nightwing/Nightwing 001.cbz'));
    await makeCbz(dir, 'Batman/Batman 003.cbz', {
      pages: 1,
      comicInfo: { Series: 'Batman', Number: 3, StoryArc: 'Court of Owls', StoryArcNumber: '1.5' },
    });
    const before = await readList('Court of Owls');
    // A group that spans libraries: the other library's series stays in it when this one is scanned.
    const otherDir = libraryDir();
    await makeCbz(otherDir, 'Robin/Robin 001.cbz', { pages: 1, comicInfo: { Series: 'Robin', SeriesGroup: 'Bat Family' } });
    await scan(t, (await createLibrary(t, otherDir)).id);
    await scan(t, libraryId);

    expect(await collection('Bat Family')).toMatchObject({ series: ['Batman', 'Robin'] });
    expect(await readList('Night of Owls')).toMatchObject({ books: ['Batman 001.cbz'] });
    expect(await readList('Owls Crossover')).toBeUndefined();
    const court = await readList('Court of Owls');
    expect(court?.books).toEqual(['Batman 002.cbz', 'Batman 003.cbz', 'Batman 001.cbz']);
    // Entries of books that stayed keep their ids.
    expect(court?.itemIds).toEqual(expect.arrayContaining(before!.itemIds));
  });
});

describe('Scan: lists a person made or changed are left alone', () => {
  it('an edited scan-made list is not rewritten, and a shared list a person made of the same name gets no twin', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Owls/Owls 001.cbz', {
      pages: 1,
      comicInfo: { Series: 'Owls', Number: 1, SeriesGroup: 'Edited Group', StoryArc: 'Edited Arc, Person Arc', StoryArcNumber: '1, 1' },
    });
    await makeCbz(dir, 'Owls/Owls 002.cbz', {
      pages: 1,
      comicInfo: { Series: 'Owls', Number: 2, SeriesGroup: 'Edited Group', StoryArc: 'Edited Arc', StoryArcNumber: '2' },
    });
    const now = nowIso();
    const personList = newId();
    await db()
      .insertInto('read_lists')
      .values({
        id: personList,
        name: 'Person Arc',
        name_key: 'person arc',
        summary: '',
        owner_user_id: null,
        cover_book_id: null,
        source: 'user',
        edited: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const { id: libraryId } = await createLibrary(t, dir);
    await scan(t, libraryId);
    expect(await readList('Edited Arc')).toMatchObject({ books: ['Owls 001.cbz', 'Owls 002.cbz'] });
    expect(await readList('Person Arc')).toMatchObject({ id: personList, source: 'user', books: [] });

    await db().updateTable('read_lists').set({ edited: 1 }).where('name_key', '=', 'edited arc').execute();
    await db().updateTable('collections').set({ edited: 1 }).where('name_key', '=', 'edited group').execute();
    const before = [await collection('Edited Group'), await readList('Edited Arc')];
    await rm(path.join(dir, 'Owls/Owls 002.cbz'));
    await scan(t, libraryId);
    expect([await collection('Edited Group'), await readList('Edited Arc')]).toEqual(before);
    expect(await readList('Person Arc')).toMatchObject({ id: personList, books: [] });
  });
});

describe('Scan: scanning_config.import_lists false makes no lists', () => {
  it('a library that does not import lists makes none, and its books count in no other scan', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Quiet/Quiet 001.cbz', {
      pages: 1,
      comicInfo: { Series: 'Quiet', SeriesGroup: 'Quiet Group', StoryArc: 'Quiet Arc' },
    });
    const { id } = await createLibrary(t, dir);
    // Set in the table: the option is stored in the library's scanning_config JSON.
    const row = await db().selectFrom('libraries').select('scanning_config').where('id', '=', id).executeTakeFirstOrThrow();
    await db()
      .updateTable('libraries')
      .set({ scanning_config: JSON.stringify({ ...JSON.parse(row.scanning_config), import_lists: false }) })
      .where('id', '=', id)
      .execute();
    await scan(t, id);
    const other = libraryDir();
    await makeCbz(other, 'Loud/Loud 001.cbz', { pages: 1, comicInfo: { Series: 'Loud', SeriesGroup: 'Loud Group' } });
    await scan(t, (await createLibrary(t, other)).id);
    expect(await collection('Loud Group')).toMatchObject({ series: ['Loud'] });
    expect(await collection('Quiet Group')).toBeUndefined();
    expect(await readList('Quiet Arc')).toBeUndefined();
  });
});
