import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, call, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { createHouseholdUser } from '../helpers/household.js';
import { userHeaders, type Headers } from '../helpers/auth.js';
import { makeCbz } from '../media/fixtures.js';
import { enableKomga, expectKomga, send } from '../komga/helpers.js';
import path from 'node:path';
import { mkdirSync, utimesSync } from 'node:fs';

interface SeriesBody {
  id: string;
  name: string;
  metadata: Record<string, unknown>;
  locks: Record<string, true>;
  sharing_labels: string[];
}
interface BookBody {
  id: string;
  title: string;
  number: string | null;
  metadata: Record<string, unknown>;
  locks: Record<string, true>;
}

/** Every editable series field with a value unlike the files'. */
export const SERIES_EDIT = {
  title: 'Fixed Title',
  sort_title: 'fixed title, the',
  summary: 'A summary a person wrote.',
  publisher: 'Right Publisher',
  status: 'hiatus',
  reading_direction: 'rtl',
  age_rating: 'Teen',
  language: 'ja',
  genres: ['Drama', 'Mystery'],
  tags: ['favourite'],
  total_book_count: 12,
  links: [{ label: 'Home', url: 'https://example.org/series' }],
  alternate_titles: [{ label: 'Japanese', title: 'Kotei' }],
};

export const BOOK_EDIT = {
  title: 'The Real Title',
  number: '7',
  number_sort: 7,
  summary: 'What happens.',
  release_date: '2020-05-17',
  authors: [
    { name: 'Ann Writer', role: 'writer' },
    { name: 'Ben Inker', role: 'inker' },
  ],
  tags: ['one-shot'],
  isbn: '9780000000001',
  links: [{ label: 'Shop', url: 'https://example.org/book' }],
};

describe('metadata editing (native API)', () => {
  let t: CatalogTestApp;
  let seriesId: string;
  let otherId: string;
  let bookIds: string[];
  let reader: Headers;

  beforeAll(async () => {
    t = await createCatalogApp(enableKomga);
    await scannedLibrary(t, async (dir) => {
      const folder = path.join(dir, 'Scan Group');
      mkdirSync(folder);
      await makeCbz(folder, 'one.cbz', {
        pages: 1,
        comicInfo: { Series: 'Scan Group', Number: '1', Summary: 'From the file.', Genre: 'Action' },
      });
      await makeCbz(folder, 'two.cbz', { pages: 1, comicInfo: { Series: 'Scan Group', Number: '2', Title: 'File Title' } });
      mkdirSync(path.join(dir, 'Other'));
      await makeCbz(path.join(dir, 'Other'), 'o1.cbz', { pages: 1, comicInfo: { Series: 'Other', Genre: 'Comedy' } });
    });
    const list = await api<Paged<SeriesBody>>(t, 'GET', '/api/v1/series');
    seriesId = list.body.data.find((s) => s.name === 'Scan Group')!.id;
    otherId = list.body.data.find((s) => s.name === 'Other')!.id;
    const books = await api<Paged<BookBody>>(t, 'GET', `/api/v1/series/${seriesId}/books`);
    bookIds = books.body.data.map((b) => b.id);
    reader = await userHeaders(t, 'reader');
  });
  afterAll(async () => t?.close());

  it('every series field round-trips, locked, and unlocking gives the files back at once', async () => {
    const before = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    expect(before.locks).toEqual({});
    const res = await api<SeriesBody>(t, 'PATCH', `/api/v1/series/${seriesId}`, SERIES_EDIT);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [field, value] of Object.entries(SERIES_EDIT)) expect(res.body.metadata[field], field).toEqual(value);
    expect(res.body.metadata.age).toBe(13);
    expect(Object.keys(res.body.locks).sort()).toEqual(Object.keys(SERIES_EDIT).sort());
    const got = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    expect(got.metadata).toEqual(res.body.metadata);

    // Search and sort read the same columns.
    const found = await api<Paged<SeriesBody>>(t, 'POST', '/api/v1/series/search', { query: 'Fixed Title' });
    expect(found.body.data.map((s) => s.id)).toEqual([seriesId]);
    const genre = await api<Paged<SeriesBody>>(t, 'POST', '/api/v1/series/list', {
      condition: { genre: { operator: 'is', value: 'Mystery' } },
    });
    expect(genre.body.data.map((s) => s.id)).toEqual([seriesId]);

    const unlock = Object.fromEntries(Object.keys(SERIES_EDIT).map((f) => [f, false]));
    const back = await api<SeriesBody>(t, 'PATCH', `/api/v1/series/${seriesId}`, { locks: unlock });
    expect(back.status).toBe(200);
    expect(back.body.locks).toEqual({});
    expect(back.body.metadata).toEqual(before.metadata);
  });

  it('every book field round-trips; lock false sets without locking', async () => {
    const id = bookIds[0]!;
    const before = (await api<BookBody>(t, 'GET', `/api/v1/books/${id}`)).body;
    const res = await api<BookBody>(t, 'PATCH', `/api/v1/books/${id}`, BOOK_EDIT);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [field, value] of Object.entries(BOOK_EDIT)) expect(res.body.metadata[field], field).toEqual(value);
    expect(res.body.metadata.year).toBe(2020);
    expect(Object.keys(res.body.locks).sort()).toEqual(Object.keys(BOOK_EDIT).sort());
    const unlocked = await api<BookBody>(t, 'PATCH', `/api/v1/books/${id}`, { summary: 'Loose', locks: { summary: false } });
    expect(unlocked.body.metadata.summary).toBe('Loose');
    expect(unlocked.body.locks.summary).toBeUndefined();
    const unlock = Object.fromEntries(Object.keys(BOOK_EDIT).map((f) => [f, false]));
    const back = await api<BookBody>(t, 'PATCH', `/api/v1/books/${id}`, { locks: unlock });
    expect(back.body.locks).toEqual({});
    expect({ ...back.body.metadata, summary: before.metadata.summary }).toEqual(before.metadata);
  });

  it('a bulk change is one history group; undoing any entry restores every value and lock', async () => {
    const ids = [seriesId, otherId];
    const before = await Promise.all(ids.map(async (id) => (await api<SeriesBody>(t, 'GET', `/api/v1/series/${id}`)).body));
    const res = await api<{ group_id: string; updated: number }>(t, 'PATCH', '/api/v1/series', {
      ids,
      changes: { reading_direction: 'rtl' },
      add: { genres: ['Seinen'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updated).toBe(2);
    for (const [i, id] of ids.entries()) {
      const s = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${id}`)).body;
      expect(s.metadata.genres).toEqual([...(before[i]!.metadata.genres as string[]), 'Seinen']);
      expect(s.metadata.reading_direction).toBe('rtl');
      expect(s.locks).toEqual({ genres: true, reading_direction: true });
    }
    const history = await api<Paged<{ id: string; group_id: string; field: string }>>(t, 'GET', `/api/v1/series/${otherId}/history`);
    const entry = history.body.data.find((e) => e.group_id === res.body.group_id)!;
    const undo = await api<{ undone: unknown[] }>(t, 'POST', `/api/v1/history/${entry.id}/undo`);
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(undo.body.undone).toHaveLength(4);
    for (const [i, id] of ids.entries()) {
      const s = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${id}`)).body;
      expect(s.metadata).toEqual(before[i]!.metadata);
      expect(s.locks).toEqual(before[i]!.locks);
    }
    expect((await api(t, 'POST', `/api/v1/history/${entry.id}/undo`)).status).toBe(409);
  });

  it('a change of sharing labels is in the history (who, before → after) and undone like any change', async () => {
    const labelsOf = async () => (await api<{ sharing_labels: string[] }>(t, 'GET', `/api/v1/series/${otherId}`)).body.sharing_labels;
    const start = await labelsOf();
    const res = await api(t, 'PATCH', `/api/v1/series/${otherId}`, { sharing_labels: ['Kids', ' family '] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await labelsOf()).toEqual(['family', 'kids']);
    // The same labels again change nothing and record nothing.
    expect((await api(t, 'PATCH', `/api/v1/series/${otherId}`, { sharing_labels: ['kids', 'family'] })).status).toBe(200);
    const history = await api<Paged<{ id: string; field: string; before: unknown; after: unknown; user_id: string | null }>>(
      t,
      'GET',
      `/api/v1/series/${otherId}/history`,
    );
    const entries = history.body.data.filter((e) => e.field === 'sharing_labels');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ before: start, after: ['family', 'kids'] });
    expect(entries[0]!.user_id).toBeTruthy();
    const undo = await api<{ undone: unknown[] }>(t, 'POST', `/api/v1/history/${entries[0]!.id}/undo`);
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(await labelsOf()).toEqual(start);
  });

  it('every field round-trips through the Komga API, its *Lock fields show the locks, and unlocking there restores the files', async () => {
    const before = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    const update = {
      title: 'Komga Title',
      titleLock: true,
      titleSort: 'komga title',
      titleSortLock: true,
      summary: 'Komga summary',
      summaryLock: true,
      publisher: 'Komga Pub',
      publisherLock: true,
      status: 'ENDED',
      statusLock: true,
      readingDirection: 'WEBTOON',
      readingDirectionLock: true,
      ageRating: 16,
      ageRatingLock: true,
      language: 'fr',
      languageLock: true,
      genres: ['Horror'],
      genresLock: true,
      tags: ['komga'],
      tagsLock: true,
      totalBookCount: 9,
      totalBookCountLock: true,
      links: [{ label: 'Site', url: 'https://example.org/k' }],
      linksLock: true,
      alternateTitles: [{ label: 'en', title: 'Other Name' }],
      alternateTitlesLock: true,
    };
    expectKomga(update, 'SeriesMetadataUpdateDto');
    expect((await api(t, 'PATCH', `/komga/api/v1/series/${seriesId}/metadata`, update)).status).toBe(204);
    const dto = await send<{ metadata: Record<string, unknown> }>(t, 'GET', `/komga/api/v1/series/${seriesId}`, t.headers);
    expectKomga(dto.body, 'SeriesDto');
    for (const [key, value] of Object.entries(update)) expect(dto.body.metadata[key], key).toEqual(value);
    const native = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    expect(native.metadata).toMatchObject({ title: 'Komga Title', status: 'ended', reading_direction: 'webtoon', age: 16 });
    const unlock = Object.fromEntries(
      Object.keys(update)
        .filter((k) => k.endsWith('Lock'))
        .map((k) => [k, false]),
    );
    expect((await api(t, 'PATCH', `/komga/api/v1/series/${seriesId}/metadata`, unlock)).status).toBe(204);
    expect((await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body.metadata).toEqual(before.metadata);

    const id = bookIds[1]!;
    const bookUpdate = {
      title: 'Komga Book',
      titleLock: true,
      summary: 'Book summary',
      summaryLock: true,
      number: '12',
      numberLock: true,
      numberSort: 12.5,
      numberSortLock: true,
      releaseDate: '2001-02-03',
      releaseDateLock: true,
      authors: [{ name: 'Cleo Colorist', role: 'colorist' }],
      authorsLock: true,
      tags: ['t1'],
      tagsLock: true,
      isbn: '9781234567897',
      isbnLock: true,
      links: [{ label: 'L', url: 'https://example.org/b' }],
      linksLock: true,
    };
    expectKomga(bookUpdate, 'BookMetadataUpdateDto');
    expect((await api(t, 'PATCH', `/komga/api/v1/books/${id}/metadata`, bookUpdate)).status).toBe(204);
    const book = await send<{ metadata: Record<string, unknown> }>(t, 'GET', `/komga/api/v1/books/${id}`, t.headers);
    expectKomga(book.body, 'BookDto');
    for (const [key, value] of Object.entries(bookUpdate)) expect(book.body.metadata[key], key).toEqual(value);
    const batch = { [id]: { title: 'Batch Title', summaryLock: false } };
    expectKomga(batch[id], 'BookMetadataUpdateDto');
    expect((await api(t, 'PATCH', '/komga/api/v1/books/metadata', batch)).status).toBe(204);
    const after = (await api<BookBody>(t, 'GET', `/api/v1/books/${id}`)).body;
    expect(after.metadata.title).toBe('Batch Title');
    expect(after.locks.summary).toBeUndefined();
    expect((await api(t, 'PATCH', `/komga/api/v1/series/${seriesId}/metadata`, { status: 'SLEEPING' })).status).toBe(400);
  });

  it('renumbering books is one change: numbers in the order given, locked; undoing it puts every number and lock back', async () => {
    const ids = [bookIds[1]!, bookIds[0]!];
    const book = async (id: string) => (await api<BookBody>(t, 'GET', `/api/v1/books/${id}`)).body;
    const numbers = (b: BookBody) => [b.number, b.metadata.number_sort, b.locks.number ?? false, b.locks.number_sort ?? false];
    const before = await Promise.all(ids.map(book));
    const res = await api<{ group_id: string; updated: number; entry_id: string }>(t, 'POST', '/api/v1/books/renumber', {
      ids,
      start: 10,
      step: 0.1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updated).toBe(2);
    expect((await Promise.all(ids.map(book))).map(numbers)).toEqual([
      ['10', 10, true, true],
      ['10.1', 10.1, true, true],
    ]);
    const listed = await api<Paged<BookBody>>(t, 'GET', `/api/v1/series/${seriesId}/books`);
    expect(listed.body.data.map((b) => b.id)).toEqual(ids);
    const history = await api<Paged<{ group_id: string; field: string }>>(t, 'GET', `/api/v1/books/${ids[0]}/history`);
    expect(history.body.data.filter((e) => e.group_id === res.body.group_id).map((e) => e.field)).toEqual(['number_sort', 'number']);

    const undo = await api<{ undone: unknown[] }>(t, 'POST', `/api/v1/history/${res.body.entry_id}/undo`);
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(undo.body.undone).toHaveLength(4);
    expect((await Promise.all(ids.map(book))).map(numbers)).toEqual(before.map(numbers));
  });

  it('renumbering refuses bad input with a 400 and the error body, and a missing book with a 404', async () => {
    const bodies = [
      { ids: [bookIds[0], bookIds[1], bookIds[0]] },
      { ids: [] },
      { ids: bookIds, step: 0 },
      { ids: bookIds, start: 'one' },
      { ids: bookIds, start: 1e9 },
      { ids: ['not-a-uuid'] },
      { ids: bookIds, order: 'asc' },
    ];
    for (const body of bodies) {
      const res = await api<{ error: string; message: string; details: { field: string }[] }>(t, 'POST', '/api/v1/books/renumber', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: 'BadRequest', message: expect.any(String), details: expect.any(Array) });
    }
    const twice = await api<{ details: { field: string }[] }>(t, 'POST', '/api/v1/books/renumber', { ids: [bookIds[0], bookIds[0]] });
    expect(twice.body.details[0]!.field).toBe('ids.1');
    const missing = await api(t, 'POST', '/api/v1/books/renumber', { ids: [bookIds[0], '0b5e8a4e-8f4a-4d1e-9a57-3a4c8e0f0a11'] });
    expect(missing.status).toBe(404);
  });

  it('bad values are 400', async () => {
    expect((await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { status: 'sleeping' })).status).toBe(400);
    for (const url of ['javascript:alert(1)', 'example.org/no-scheme', 'file:///etc/passwd']) {
      const res = await api<{ details: { field: string }[] }>(t, 'PATCH', `/api/v1/series/${seriesId}`, { links: [{ label: 'x', url }] });
      expect(res.status, url).toBe(400);
      expect(res.body.details[0]!.field).toBe('links.0.url');
    }
    expect((await api(t, 'PATCH', `/api/v1/books/${bookIds[0]}`, { release_date: 'May 2020' })).status).toBe(400);
    expect((await api(t, 'PATCH', `/api/v1/books/${bookIds[0]}`, { locks: { nonsense: true } })).status).toBe(400);
  });

  it('a reader gets 403 on every edit route', async () => {
    const routes: [string, string, unknown][] = [
      ['PATCH', `/api/v1/series/${seriesId}`, { summary: 'x' }],
      ['PATCH', `/api/v1/books/${bookIds[0]}`, { summary: 'x' }],
      ['PATCH', '/api/v1/series', { ids: [seriesId], changes: { summary: 'x' } }],
      ['PATCH', '/api/v1/books', { ids: bookIds, changes: { summary: 'x' } }],
      ['POST', '/api/v1/books/renumber', { ids: bookIds }],
      ['POST', `/api/v1/history/${seriesId}/undo`, undefined],
      ['PATCH', `/komga/api/v1/series/${seriesId}/metadata`, { summary: 'x' }],
      ['PATCH', `/komga/api/v1/books/${bookIds[0]}/metadata`, { summary: 'x' }],
      ['PATCH', '/komga/api/v1/books/metadata', { [bookIds[0]!]: { summary: 'x' } }],
    ];
    for (const [method, url, body] of routes)
      expect((await call(t, reader, method as 'PATCH', url, body)).status, `${method} ${url}`).toBe(403);
  });

  it('a series hidden from the editor is 404 on every route, and nothing changes', async () => {
    const editor = await createHouseholdUser(t, { labels_exclude: ['secret'] }, 'maintainer');
    expect((await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { sharing_labels: ['secret'], locks: {} })).status).toBe(200);
    const routes: [string, string, unknown][] = [
      ['PATCH', `/api/v1/series/${seriesId}`, { summary: 'hidden edit' }],
      ['PATCH', `/api/v1/books/${bookIds[0]}`, { summary: 'hidden edit' }],
      ['PATCH', '/api/v1/series', { ids: [seriesId], changes: { summary: 'hidden edit' } }],
      ['PATCH', '/api/v1/books', { ids: bookIds, changes: { summary: 'hidden edit' } }],
      ['POST', '/api/v1/books/renumber', { ids: bookIds, start: 90 }],
      ['GET', `/api/v1/series/${seriesId}/history`, undefined],
      ['GET', `/api/v1/books/${bookIds[0]}/history`, undefined],
    ];
    for (const [method, url, body] of routes)
      expect((await call(t, editor.jwt, method as 'PATCH', url, body)).status, `${method} ${url}`).toBe(404);
    expect((await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { sharing_labels: [] })).status).toBe(200);
    const series = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    expect(series.metadata.summary).not.toBe('hidden edit');
    const books = await api<Paged<BookBody>>(t, 'GET', `/api/v1/series/${seriesId}/books`);
    expect(books.body.data.map((b) => b.number)).not.toContain('90');
  });
});

describe('metadata editing and rescans', () => {
  let t: CatalogTestApp;
  let dir: string;
  let libraryId: string;

  beforeAll(async () => {
    t = await createCatalogApp();
    const lib = await scannedLibrary(t, async (root) => {
      const folder = path.join(root, 'Series A');
      mkdirSync(folder);
      await makeCbz(folder, 'a1.cbz', {
        pages: 1,
        comicInfo: { Series: 'Series A', Number: '1', Title: 'Old Title', Summary: 'Old summary', Genre: 'Old' },
      });
    });
    dir = path.join(lib.dir, 'Series A');
    libraryId = lib.id;
  });
  afterAll(async () => t?.close());

  it('a rescan with changed files keeps locked fields, updates unlocked ones, and records itself; unlocking gives the new file value', async () => {
    const seriesId = (await api<Paged<SeriesBody>>(t, 'GET', '/api/v1/series')).body.data[0]!.id;
    const bookId = (await api<Paged<BookBody>>(t, 'GET', `/api/v1/series/${seriesId}/books`)).body.data[0]!.id;
    expect(
      (await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { summary: 'Person summary', genres: ['Loose'], locks: { genres: false } }))
        .status,
    ).toBe(200);
    expect((await api(t, 'PATCH', `/api/v1/books/${bookId}`, { title: 'Person Title' })).status).toBe(200);

    await makeCbz(dir, 'a1.cbz', {
      pages: 2,
      comicInfo: { Series: 'Series A', Number: '3', Title: 'New Title', Summary: 'New summary', Genre: 'New' },
    });
    const future = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, 'a1.cbz'), future, future);
    await scan(t, libraryId);

    const series = (await api<SeriesBody>(t, 'GET', `/api/v1/series/${seriesId}`)).body;
    expect(series.metadata.summary).toBe('Person summary');
    expect(series.metadata.genres).toEqual(['New']);
    expect(series.locks).toEqual({ summary: true });
    const book = (await api<BookBody>(t, 'GET', `/api/v1/books/${bookId}`)).body;
    expect(book.metadata.title).toBe('Person Title');
    expect(book.metadata.number).toBe('3');

    const history = await api<Paged<{ field: string; source: string; before: unknown; after: unknown }>>(
      t,
      'GET',
      `/api/v1/books/${bookId}/history`,
    );
    expect(history.body.data).toContainEqual(expect.objectContaining({ field: 'number', source: 'scan', before: '1', after: '3' }));
    expect(history.body.data).toContainEqual(expect.objectContaining({ field: 'title', source: 'person', after: 'Person Title' }));

    const unlocked = (await api<SeriesBody>(t, 'PATCH', `/api/v1/series/${seriesId}`, { locks: { summary: false } })).body;
    expect(unlocked.metadata.summary).toBe('New summary');
    const book2 = (await api<BookBody>(t, 'PATCH', `/api/v1/books/${bookId}`, { locks: { title: false } })).body;
    expect(book2.metadata.title).toBe('New Title');
  });
});
