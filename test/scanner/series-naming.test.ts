import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreedSeriesName } from '../../src/libraries/scanning/scanner/series-rules.js';
import { makeCbz, makeEpub, makePdf } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';

interface SeriesBody {
  id: string;
  name: string;
  path: string;
}
interface BookBody {
  id: string;
  title: string;
  number: string | null;
  volume: number | null;
  file_name: string;
  metadata: {
    year: number | null;
    number: string | null;
    volume: number | null;
    series: string | null;
    sources: { series: string | null };
  };
}

let t: CatalogTestApp;
let dir: string;
let libraryId: string;

beforeAll(async () => {
  t = await createCatalogApp();
  dir = libraryDir();
  // Six papers without any series source; one of them carries a scanner's name.
  await makePdf(dir, 'Documents/Papers/Scan_20190612_0001.pdf', { pages: 1 });
  for (const name of ['Budget.pdf', 'Minutes.pdf', 'Agenda.pdf', 'Travel policy.pdf', 'Letter to the board.pdf'])
    await makePdf(dir, `Documents/Papers/${name}`, { pages: 1 });
  // The first book says nothing embedded; the two others' ComicInfo name the series.
  await makeCbz(dir, 'Lifecycle Series/Life 01.cbz', { pages: 1 });
  await makeCbz(dir, 'Lifecycle Series/Lifecycle 02.cbz', { pages: 1, comicInfo: { Series: 'Lifecycle Series', Number: 2 } });
  await makeCbz(dir, 'Lifecycle Series/Lifecycle 03.cbz', { pages: 1, comicInfo: { Series: 'Lifecycle Series', Number: 3 } });
  // File names alone agree on "Saga" for exactly half of the books: not enough.
  await makeCbz(dir, 'Mixed/Saga 001.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Saga 002.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Paper Girls 001.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Monstress 001.cbz', { pages: 1 });
  // File names agree on "Saga" for two books of three: more than half, and at least two.
  await makeCbz(dir, 'Majority/Saga 001.cbz', { pages: 1 });
  await makeCbz(dir, 'Majority/Saga 002.cbz', { pages: 1 });
  await makeCbz(dir, 'Majority/Paper Girls 001.cbz', { pages: 1 });
  // Two guides with no series metadata: one file name's parse is one book of two, not a series name.
  await makePdf(dir, 'Guides/hns_guide_final_v3.pdf', { pages: 2, info: { Title: 'HNS Guide', Author: 'Network Team' } });
  await makePdf(dir, 'Guides/Router Quick Start (web).pdf', { pages: 1, info: { Title: 'Router Quick Start' } });
  // One book states its series; two file names guess "Komga": the stated name wins (and matches the folder).
  await makeCbz(dir, 'Komga Series/Komga 01.cbz', { pages: 1, comicInfo: { Series: 'Komga Series', Number: 1 } });
  await makeCbz(dir, 'Komga Series/Komga 02.cbz', { pages: 1 });
  await makeCbz(dir, 'Komga Series/Komga 03.cbz', { pages: 1 });
  // One OPF series against one file-name parse: a tie, won by the higher source.
  await makeEpub(dir, 'Tie/Book One.epub', { metadata: { title: 'Book One', series: 'The Expanse', seriesIndex: '1' } });
  await makeCbz(dir, 'Tie/Leviathan 002.cbz', { pages: 1 });
  // A dated file name.
  await makePdf(dir, 'Documents/Minutes/Meeting Notes 2020-05-14.pdf', { pages: 1 });
  libraryId = (await createLibrary(t, dir)).id;
  await scan(t, libraryId);
});
afterAll(() => t.close());

async function allSeries(): Promise<Map<string, SeriesBody>> {
  const res = await api<{ data: SeriesBody[] }>(t, 'GET', `/api/v1/series?library_id=${libraryId}&pageSize=100`);
  expect(res.status).toBe(200);
  return new Map(res.body.data.map((s) => [s.path, s]));
}

async function booksOf(seriesPath: string): Promise<BookBody[]> {
  const series = (await allSeries()).get(seriesPath);
  expect(series, seriesPath).toBeDefined();
  const res = await api<{ data: BookBody[] }>(t, 'GET', `/api/v1/series/${series!.id}/books?pageSize=100`);
  expect(res.status).toBe(200);
  return res.body.data;
}

const names = async () => Object.fromEntries([...(await allSeries())].map(([path, s]) => [path, s.name]));

describe("A folder's series name is what its books agree on", () => {
  it('Documents/Papers: one Scan_20190612_0001.pdf among six papers does not rename the folder ("Papers", from the folder)', async () => {
    expect((await allSeries()).get('Documents/Papers')!.name).toBe('Papers');
    const books = await booksOf('Documents/Papers');
    expect(books).toHaveLength(6);
    for (const b of books) expect(b.metadata, b.file_name).toMatchObject({ series: 'Papers', sources: { series: 'folder' } });
  });

  it('Lifecycle Series: two ComicInfo "Lifecycle Series" outvote the first book\'s file name ("Life")', async () => {
    expect((await allSeries()).get('Lifecycle Series')!.name).toBe('Lifecycle Series');
    const books = await booksOf('Lifecycle Series');
    expect(books.map((b) => b.file_name).sort()).toEqual(['Life 01.cbz', 'Lifecycle 02.cbz', 'Lifecycle 03.cbz']);
    for (const b of books) expect(b.metadata, b.file_name).toMatchObject({ series: 'Lifecycle Series', sources: { series: 'comicinfo' } });
  });

  it('a file-name parse names the series only when at least two books and more than half of them parse to it', async () => {
    expect((await allSeries()).get('Mixed')!.name).toBe('Mixed');
    for (const b of await booksOf('Mixed')) expect(b.metadata.sources.series).toBe('folder');
    expect((await allSeries()).get('Majority')!.name).toBe('Saga');
    for (const b of await booksOf('Majority')) expect(b.metadata.sources.series).toBe('filename');
  });

  it('Guides: hns_guide_final_v3.pdf beside one other guide does not name the series ("Guides", from the folder)', async () => {
    expect((await allSeries()).get('Guides')!.name).toBe('Guides');
    const books = await booksOf('Guides');
    expect(books).toHaveLength(2);
    for (const b of books) expect(b.metadata, b.file_name).toMatchObject({ series: 'Guides', sources: { series: 'folder' } });
  });

  it('Komga Series: the name one file states wins over two file-name guesses ("Komga")', async () => {
    expect((await allSeries()).get('Komga Series')!.name).toBe('Komga Series');
    const books = await booksOf('Komga Series');
    expect(books).toHaveLength(3);
    for (const b of books) expect(b.metadata, b.file_name).toMatchObject({ series: 'Komga Series', sources: { series: 'comicinfo' } });
  });

  it('a tie goes to the higher source (OPF over a file name)', async () => {
    expect((await allSeries()).get('Tie')!.name).toBe('The Expanse');
    for (const b of await booksOf('Tie')) expect(b.metadata.sources.series).toBe('opf');
  });

  it('rescans converge to the same names; adding a Foo_0001.pdf to the papers renames nothing', async () => {
    const before = await names();
    await scan(t, libraryId, 'deep');
    expect(await names()).toEqual(before);
    await makePdf(dir, 'Documents/Papers/Foo_0001.pdf', { pages: 1 });
    await scan(t, libraryId);
    expect(await names()).toEqual(before);
    expect(await booksOf('Documents/Papers')).toHaveLength(7);
    await scan(t, libraryId, 'deep');
    expect(await names()).toEqual(before);
  });

  it('a series named by an older rule is named again by the next normal rescan, with nothing changed on disk', async () => {
    const guides = (await allSeries()).get('Guides')!;
    // What the previous rule wrote: the file-name parse of one book of two, no rule version recorded.
    await t.database.db
      .updateTable('series')
      .set({ name: 'hns guide final', sort_name: 'hns guide final', metadata: JSON.stringify({ name_source: 'filename' }) })
      .where('id', '=', guides.id)
      .execute();
    expect((await allSeries()).get('Guides')!.name).toBe('hns guide final');
    await scan(t, libraryId);
    expect((await allSeries()).get('Guides')!.name).toBe('Guides');
    for (const b of await booksOf('Guides')) expect(b.metadata).toMatchObject({ series: 'Guides', sources: { series: 'folder' } });
  });

  it('a series named by an older version (no name source recorded) is named again by the next normal rescan', async () => {
    const papers = (await allSeries()).get('Documents/Papers')!;
    await t.database.db
      .updateTable('series')
      .set({ name: 'Scan 20190612', sort_name: 'scan 20190612', metadata: '{}' })
      .where('id', '=', papers.id)
      .execute();
    expect((await booksOf('Documents/Papers'))[0]!.metadata).toMatchObject({ series: 'Scan 20190612', sources: { series: null } });
    await scan(t, libraryId);
    expect((await allSeries()).get('Documents/Papers')!.name).toBe('Papers');
    for (const b of await booksOf('Documents/Papers'))
      expect(b.metadata).toMatchObject({ series: 'Papers', sources: { series: 'folder' } });
  });

  it("the rule is in the OpenAPI description of the series name and of the books' series source", () => {
    const doc = (t.app as unknown as { swagger(): unknown }).swagger();
    const schemas = (
      doc as {
        components: {
          schemas: Record<
            string,
            { properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> }
          >;
        };
      }
    ).components.schemas;
    expect(schemas.Series!.properties.name!.description).toMatch(/more than half of the books/);
    expect(schemas.BookMetadata!.properties.sources!.properties!.series!.description).toMatch(/comicinfo.*opf.*pdf.*filename.*folder/s);
  });
});

describe('A dated file name through the scan', () => {
  it('"Meeting Notes 2020-05-14.pdf" has no number and no volume; its year is 2020', async () => {
    const [book] = await booksOf('Documents/Minutes');
    expect(book).toMatchObject({ title: 'Meeting Notes 2020-05-14', number: null, volume: null });
    expect(book!.metadata).toMatchObject({ number: null, volume: null, year: 2020 });
  });
});

describe('agreedSeriesName (the rule on its own)', () => {
  const vote = (series: string, source: string) => ({ series, sources: { series: source as 'comicinfo' } });
  it('a stated name wins over any guess; among stated names most books, then the higher source, then the folder name', () => {
    expect(agreedSeriesName('A', [vote('X', 'filename'), vote('X', 'filename'), vote('Y', 'comicinfo')])).toEqual({
      name: 'Y',
      source: 'comicinfo',
    });
    expect(agreedSeriesName('A', [vote('X', 'pdf'), vote('Y', 'opf')])).toEqual({ name: 'Y', source: 'opf' });
    expect(agreedSeriesName('A', [vote('X', 'opf'), vote('X', 'opf'), vote('Y', 'comicinfo')])).toEqual({ name: 'X', source: 'opf' });
    expect(agreedSeriesName('Comics/Komga Series', [vote('Komga', 'comicinfo'), vote('Komga Series', 'comicinfo')])).toEqual({
      name: 'Komga Series',
      source: 'comicinfo',
    });
  });

  it('file names need at least two books and more than half of them; otherwise the folder names the series', () => {
    expect(agreedSeriesName('A', [vote('X', 'filename'), vote('A', 'folder'), vote('A', 'folder')])).toEqual({
      name: 'A',
      source: 'folder',
    });
    expect(agreedSeriesName('A/B', [vote('X', 'filename'), vote('B', 'folder')])).toEqual({ name: 'B', source: 'folder' });
    expect(agreedSeriesName('G', [vote('X', 'filename'), vote('X', 'filename'), vote('Y', 'filename'), vote('Z', 'filename')])).toEqual({
      name: 'G',
      source: 'folder',
    });
    expect(agreedSeriesName('G', [vote('X', 'filename'), vote('X', 'filename'), vote('Y', 'filename')])).toEqual({
      name: 'X',
      source: 'filename',
    });
    expect(agreedSeriesName('A', [{}, {}])).toEqual({ name: 'A', source: 'folder' });
  });

  it('a loose file is a series by itself: its own parse names it', () => {
    expect(agreedSeriesName('Loose 003.cbz', [vote('Loose', 'filename')], true)).toEqual({ name: 'Loose', source: 'filename' });
  });
});
