import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

interface BookBody {
  id: string;
  file_name: string;
  metadata: { sources: Record<string, string | null> };
}

let t: CatalogTestApp;
let books: Map<string, BookBody>;
beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  await makeCbz(dir, 'Sourced/Sourced 007.cbz', {
    pages: 2,
    comicInfo: { Series: 'Sourced', Title: 'The Seventh', Publisher: 'Image', Year: 2020 },
  });
  await makeEpub(dir, 'Sourced/Novel.epub', { metadata: { title: 'A Novel', language: 'fr' } });
  await scan(t, (await createLibrary(t, dir)).id);
  const list = await api<{ data: BookBody[] }>(t, 'GET', '/api/v1/books?pageSize=10');
  books = new Map(list.body.data.map((b) => [b.file_name, b]));
});
afterAll(() => t.close());

const details = async (fileName: string) => {
  const res = await api<BookBody>(t, 'GET', `/api/v1/books/${books.get(fileName)!.id}`);
  expect(res.status).toBe(200);
  return res.body.metadata.sources;
};

describe('GET /books/{id} names the source of each metadata field', () => {
  it('a CBZ: ComicInfo fields from comicinfo, the number it does not give from the file name, the page count from the file', async () => {
    const sources = await details('Sourced 007.cbz');
    expect(sources).toMatchObject({
      title: 'comicinfo',
      publisher: 'comicinfo',
      year: 'comicinfo',
      page_count: 'file',
      series: 'comicinfo',
    });
    expect(sources.number).toBe('filename');
    expect(sources.isbn).toBeNull();
  });

  it('an EPUB: its OPF fields from opf', async () => {
    expect(await details('Novel.epub')).toMatchObject({ title: 'opf', language: 'opf', isbn: null });
  });

  it('lists keep only the series source (they do not read the stored record)', () => {
    expect(Object.keys(books.get('Sourced 007.cbz')!.metadata.sources)).toEqual(['series']);
  });
});
