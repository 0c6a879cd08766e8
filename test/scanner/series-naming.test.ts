import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agreedSeriesName } from '../../src/scanner/series-rules.js';
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
  // File names alone agree on "Saga" for exactly half of the books: enough.
  await makeCbz(dir, 'Mixed/Saga 001.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Saga 002.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Paper Girls 001.cbz', { pages: 1 });
  await makeCbz(dir, 'Mixed/Monstress 001.cbz', { pages: 1 });
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

  it('a file-name parse names the series when at least half of the books parse to it', async () => {
    expect((await allSeries()).get('Mixed')!.name).toBe('Saga');
    for (const b of await booksOf('Mixed')) expect(b.metadata.sources.series).toBe('filename');
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
    expect(schemas.Series!.properties.name!.description).toMatch(/at least half of the books/);
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
  it('most books win over a higher source; ties go to the higher source; file names need half of the books', () => {
    expect(agreedSeriesName('A', [vote('X', 'filename'), vote('X', 'filename'), vote('Y', 'comicinfo')])).toEqual({
      name: 'X',
      source: 'filename',
    });
    expect(agreedSeriesName('A', [vote('X', 'pdf'), vote('Y', 'opf')])).toEqual({ name: 'Y', source: 'opf' });
    expect(agreedSeriesName('A', [vote('X', 'filename'), vote('A', 'folder'), vote('A', 'folder')])).toEqual({
      name: 'A',
      source: 'folder',
    });
    expect(agreedSeriesName('A/B', [vote('X', 'filename'), vote('B', 'folder')])).toEqual({ name: 'X', source: 'filename' });
    expect(agreedSeriesName('A', [{}, {}])).toEqual({ name: 'A', source: 'folder' });
    expect(agreedSeriesName('Loose 003.cbz', [vote('Loose', 'filename')])).toEqual({ name: 'Loose', source: 'filename' });
  });
});
