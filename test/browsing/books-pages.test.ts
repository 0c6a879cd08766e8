import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { writeCorpus, writePagesBook } from './corpus.js';

interface Book {
  id: string;
  series_id: string;
  library_id: string;
  title: string;
  number: string | null;
  path: string;
  file_size: number;
  page_count: number;
  format: string | null;
  hash: string | null;
  analysis_error: string | null;
  metadata: { genres: string[]; tags: string[] };
  created_at: string;
  updated_at: string;
  progress: { current_page: number; is_completed: boolean } | null;
}

let t: CatalogTestApp;
let dir: string;
let all: Book[];
let known: { page1: Buffer; page2: Buffer };
let pagesBook: Book;
const titles = (list: Book[]) => list.map((b) => b.title);

async function books(url: string): Promise<Book[]> {
  const res = await api<Paged<Book>>(t, 'GET', url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}
const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...t.headers, ...headers } });

beforeAll(async () => {
  t = await createCatalogApp();
  const lib = await scannedLibrary(t, async (d) => {
    await writeCorpus(d);
    known = await writePagesBook(d);
  });
  dir = lib.dir;
  all = await books('/api/v1/books?pageSize=500');
  pagesBook = all.find((b) => b.title === 'Known pages')!;
});
afterAll(() => t.close());

describe('GET /books and POST /books/list', () => {
  it('books carry the spec fields, paths relative to the library, and the analysis error', async () => {
    expect(all.length).toBe(12);
    const broken = all.find((b) => b.path === 'Broken/Broken 001.cbz')!;
    expect(broken.analysis_error).toEqual(expect.any(String));
    expect(pagesBook).toMatchObject({ path: 'Pages/Pages 001.cbz', format: 'cbz', page_count: 2, number: '1', progress: null });
    expect(pagesBook.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  const key: Record<string, (b: Book) => string | number> = {
    title: (b) => b.title,
    file_size: (b) => b.file_size,
    page_count: (b) => b.page_count,
    created_at: (b) => b.created_at,
    modified_at: (b) => b.updated_at,
  };
  for (const [field, value] of Object.entries(key)) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sort=${field},${direction} and sort=${field}&order=${direction}`, async () => {
        for (const url of [
          `/api/v1/books?pageSize=500&sort=${field},${direction}`,
          `/api/v1/books?pageSize=500&sort=${field}&order=${direction}`,
        ]) {
          const values = (await books(url)).map(value);
          const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect(values).toEqual(direction === 'asc' ? sorted : sorted.reverse());
        }
      });
    }
  }
  for (const direction of ['asc', 'desc'] as const) {
    it(`sort=number,${direction} (numeric, books without a number last)`, async () => {
      const list = await books(`/api/v1/books?pageSize=500&sort=number,${direction}`);
      const numbers = list.map((b) => (b.number === null ? null : Number(b.number)));
      const present = numbers.filter((n): n is number => n !== null);
      expect(numbers.slice(present.length).every((n) => n === null)).toBe(true);
      const sorted = [...present].sort((a, b) => a - b);
      expect(present).toEqual(direction === 'asc' ? sorted : sorted.reverse());
    });
  }

  it('library_id and series_id restrict the list', async () => {
    const series = all.find((b) => b.title === 'Dragon Ball 2')!.series_id;
    expect(titles(await books(`/api/v1/books?series_id=${series}&sort=number`))).toEqual([
      'Dragon Ball 1',
      'Dragon Ball 2',
      'Dragon Ball 3',
    ]);
    expect((await books(`/api/v1/books?library_id=${pagesBook.library_id}&pageSize=500`)).length).toBe(12);
    expect(await books('/api/v1/books?library_id=01890000-0000-7000-8000-000000000000')).toEqual([]);
  });

  it('every book filter field with its operators, nested, and full-text', async () => {
    const f = async (condition: unknown, fullTextSearch?: string) => {
      const res = await api<Paged<Book>>(t, 'POST', '/api/v1/books/list?pageSize=500&sort=title', { condition, fullTextSearch });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return titles(res.body.data);
    };
    const dragon = all.find((b) => b.title === 'Dragon Ball 2')!;
    await api(t, 'PUT', `/api/v1/books/${dragon.id}/progress`, { current_page: 1 });
    await api(t, 'POST', `/api/v1/books/${all.find((b) => b.title === 'Batman 1')!.id}/read`);
    const sorted = (pred: (b: Book) => boolean) => titles(all.filter(pred)).sort();
    expect(await f({ libraryId: { operator: 'is', value: dragon.library_id } })).toEqual(sorted(() => true));
    expect(await f({ libraryId: { operator: 'isNot', value: dragon.library_id } })).toEqual([]);
    expect(await f({ seriesId: { operator: 'is', value: dragon.series_id } })).toEqual(['Dragon Ball 1', 'Dragon Ball 2', 'Dragon Ball 3']);
    expect(await f({ seriesId: { operator: 'isNot', value: dragon.series_id } })).toEqual(sorted((b) => b.series_id !== dragon.series_id));
    for (const [field, get] of [
      ['genre', (b: Book) => b.metadata.genres],
      ['tag', (b: Book) => b.metadata.tags],
    ] as const) {
      const v = field === 'genre' ? 'martial arts' : 'MANGA';
      const has = (b: Book) => get(b).some((x) => x.toLowerCase() === v.toLowerCase());
      expect(await f({ [field]: { operator: 'is', value: v } })).toEqual(sorted(has));
      expect(await f({ [field]: { operator: 'isNot', value: v } })).toEqual(sorted((b) => !has(b)));
      expect(await f({ [field]: { operator: 'contains', value: 'a' } })).toEqual(
        sorted((b) => get(b).some((x) => x.toLowerCase().includes('a'))),
      );
      expect(await f({ [field]: { operator: 'beginsWith', value: 'c' } })).toEqual(
        sorted((b) => get(b).some((x) => x.toLowerCase().startsWith('c'))),
      );
      expect(await f({ [field]: { operator: 'isNull' } })).toEqual(sorted((b) => get(b).length === 0));
      expect(await f({ [field]: { operator: 'isNotNull' } })).toEqual(sorted((b) => get(b).length > 0));
    }
    expect(await f({ title: { operator: 'is', value: 'batman 2' } })).toEqual(['Batman 2']);
    expect(await f({ title: { operator: 'isNot', value: 'batman 2' } })).toEqual(sorted((b) => b.title !== 'Batman 2'));
    expect(await f({ title: { operator: 'contains', value: 'ball' } })).toEqual(['Dragon Ball 1', 'Dragon Ball 2', 'Dragon Ball 3']);
    expect(await f({ title: { operator: 'beginsWith', value: 'cal' } })).toEqual(['Calvin and Hobbes 1']);
    expect(await f({ title: { operator: 'isNull' } })).toEqual([]);
    expect(await f({ title: { operator: 'isNotNull' } })).toEqual(sorted(() => true));
    expect(await f({ readStatus: { operator: 'is', value: 'read' } })).toEqual(['Batman 1']);
    expect(await f({ readStatus: { operator: 'is', value: 'in_progress' } })).toEqual(['Dragon Ball 2']);
    expect((await f({ readStatus: { operator: 'is', value: 'unread' } })).length).toBe(10);
    expect(await f({ readStatus: { operator: 'isNot', value: 'unread' } })).toEqual(['Batman 1', 'Dragon Ball 2']);
    expect(await f({ hasError: { operator: 'is', value: true } })).toEqual(['Broken 001']);
    expect((await f({ hasError: { operator: 'is', value: false } })).length).toBe(11);
    expect((await f({ hasError: { operator: 'isNot', value: true } })).length).toBe(11);
    expect(
      await f({
        anyOf: [
          { allOf: [{ title: { operator: 'beginsWith', value: 'dragon' } }, { readStatus: { operator: 'isNot', value: 'unread' } }] },
          { hasError: { operator: 'is', value: true } },
        ],
      }),
    ).toEqual(['Broken 001', 'Dragon Ball 2']);
    expect(await f(undefined, 'drag ball')).toEqual(['Dragon Ball 1', 'Dragon Ball 2', 'Dragon Ball 3']);
    expect(await f({ readStatus: { operator: 'is', value: 'in_progress' } }, 'dragon')).toEqual(['Dragon Ball 2']);
    expect(await f(undefined, 'ASTERIX 2')).toEqual(['Astérix 2']);
    const bad = await api<{ message: string }>(t, 'POST', '/api/v1/books/list', {
      condition: { publisher: { operator: 'is', value: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('"publisher"');
    expect((await api(t, 'POST', '/api/v1/books/list', { condition: { hasError: { operator: 'contains', value: 'x' } } })).status).toBe(
      400,
    );
  });

  it('recently-added is newest first', async () => {
    const list = await books('/api/v1/books/recently-added?pageSize=500');
    expect(list.map((b) => b.created_at)).toEqual([...list.map((b) => b.created_at)].sort().reverse());
  });

  it('GET /books/{id}: details, 404 NotFound for a missing book, 400 for a malformed id', async () => {
    // The details add the source of every metadata field; lists name only the series' source.
    const detail = (await api<Book>(t, 'GET', `/api/v1/books/${pagesBook.id}`)).body;
    const { sources: detailSources, ...detailMetadata } = detail.metadata as Book['metadata'] & { sources: Record<string, string | null> };
    const { sources: listSources, ...listMetadata } = pagesBook.metadata as Book['metadata'] & { sources: Record<string, string | null> };
    expect({ ...detail, metadata: detailMetadata }).toEqual({ ...pagesBook, metadata: listMetadata });
    expect(detailSources).toMatchObject({ ...listSources, title: 'comicinfo', page_count: 'file' });
    const missing = await api<{ error: string }>(t, 'GET', '/api/v1/books/01890000-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('NotFound');
    expect((await api(t, 'GET', '/api/v1/books/nope')).status).toBe(400);
  });
});

describe('Pages', () => {
  const pageUrl = (n: number | string, q = '') => `/api/v1/books/${pagesBook.id}/pages/${n}${q}`;

  it('GET /books/{id}/pages lists number, file name, media type, width, height, size', async () => {
    const res = await api<unknown[]>(t, 'GET', `/api/v1/books/${pagesBook.id}/pages`);
    expect(res.body).toEqual([
      { number: 1, file_name: '001.jpg', media_type: 'image/jpeg', width: 800, height: 1200, size: known.page1.length },
      { number: 2, file_name: '002.png', media_type: 'image/png', width: 400, height: 600, size: known.page2.length },
    ]);
  });

  it('without parameters, the page is the archive entry byte for byte, with its media type', async () => {
    const one = await get(pageUrl(1));
    expect(one.statusCode).toBe(200);
    expect(one.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(one.rawPayload, known.page1)).toBe(0);
    const two = await get(pageUrl(2));
    expect(two.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(two.rawPayload, known.page2)).toBe(0);
    expect(one.headers['cache-control']).toBe('private, max-age=3600');
  });

  it('page numbers are 1-based; outside 1..page_count is a 404', async () => {
    for (const n of [0, 3, 99, -1]) expect((await get(pageUrl(n))).statusCode, String(n)).toBe(404);
    expect((await get(pageUrl('x'))).statusCode).toBe(400);
    expect((await get(`/api/v1/books/01890000-0000-7000-8000-000000000000/pages/1`)).statusCode).toBe(404);
  });

  it('width/height bound the size (aspect kept, never enlarged, snapped down to a size step); format sets the encoding', async () => {
    const cases: Array<[string, string, number, number, (b: Buffer) => boolean]> = [
      ['?width=200', 'image/jpeg', 200, 300, (b) => b[0] === 0xff && b[1] === 0xd8],
      ['?width=230', 'image/jpeg', 200, 300, (b) => b[0] === 0xff && b[1] === 0xd8],
      ['?height=240', 'image/jpeg', 160, 240, (b) => b[0] === 0xff && b[1] === 0xd8],
      ['?height=250', 'image/jpeg', 160, 240, (b) => b[0] === 0xff && b[1] === 0xd8],
      ['?width=400&height=480', 'image/jpeg', 320, 480, (b) => b[0] === 0xff && b[1] === 0xd8],
      [
        '?width=200&format=webp',
        'image/webp',
        200,
        300,
        (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
      ],
      ['?width=200&format=png', 'image/png', 200, 300, (b) => b.subarray(0, 8).equals(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'))],
      ['?format=jpeg', 'image/jpeg', 800, 1200, (b) => b[0] === 0xff && b[1] === 0xd8],
      ['?width=5000', 'image/jpeg', 800, 1200, (b) => b[0] === 0xff],
    ];
    for (const [q, type, width, height, magic] of cases) {
      const res = await get(pageUrl(1, q));
      expect(res.statusCode, q).toBe(200);
      expect(res.headers['content-type'], q).toBe(type);
      expect(magic(res.rawPayload), q).toBe(true);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height], q).toEqual([width, height]);
    }
    const png = await get(pageUrl(2, '?format=jpeg&width=100'));
    expect(png.headers['content-type']).toBe('image/jpeg');
    for (const q of ['?width=0', '?format=gif', '?width=abc']) expect((await get(pageUrl(1, q))).statusCode, q).toBe(400);
  });

  it('resized pages are cached on disk under data_dir (second request served from the cache)', async () => {
    const first = await get(pageUrl(1, '?width=321&format=webp'));
    // 321 snaps down to the 320 step.
    const cached = path.join(t.config.data_dir, 'cache', 'derived', pagesBook.hash!.slice(0, 2), pagesBook.hash!, 'page-1-w320-h0-webp');
    expect(Buffer.compare(await readFile(cached), first.rawPayload)).toBe(0);
    const second = await get(pageUrl(1, '?width=321&format=webp'));
    expect(Buffer.compare(second.rawPayload, first.rawPayload)).toBe(0);
  });

  it('ETag and If-None-Match → 304; a different variant has a different ETag; HEAD works', async () => {
    const res = await get(pageUrl(1));
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const notModified = await get(pageUrl(1), { 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    const resized = await get(pageUrl(1, '?width=100'));
    expect(resized.headers.etag).not.toBe(etag);
    expect((await get(pageUrl(1, '?width=100'), { 'if-none-match': etag })).statusCode).toBe(200);
    const head = await t.app.inject({ method: 'HEAD', url: pageUrl(1), headers: t.headers });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('image/jpeg');
  });

  it('a broken book has no pages to serve; its thumbnail is the generated "unreadable" placeholder', async () => {
    const broken = all.find((b) => b.title === 'Broken 001')!;
    expect((await get(`/api/v1/books/${broken.id}/pages/1`)).statusCode).toBe(404);
    const thumbnail = await get(`/api/v1/books/${broken.id}/thumbnail`);
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
    expect(String(thumbnail.headers.etag)).toContain('unreadable');
  });
});

describe('Covers and files', () => {
  it('GET /books/{id}/thumbnail: WebP when accepted, JPEG otherwise, ETag/304', async () => {
    const webp = await get(`/api/v1/books/${pagesBook.id}/thumbnail`, { accept: 'image/webp,*/*' });
    expect(webp.statusCode).toBe(200);
    expect(webp.rawPayload.subarray(8, 12).toString('latin1')).toBe('WEBP');
    const jpeg = await get(`/api/v1/books/${pagesBook.id}/thumbnail`);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(jpeg.rawPayload).metadata()).width).toBe(400);
    expect((await get(`/api/v1/books/${pagesBook.id}/thumbnail`, { 'if-none-match': String(jpeg.headers.etag) })).statusCode).toBe(304);
  });

  it('GET /books/{id}/file: the original with Content-Disposition, Range → 206, bad range → 416, ETag', async () => {
    const original = await readFile(path.join(dir, pagesBook.path));
    const whole = await get(`/api/v1/books/${pagesBook.id}/file`);
    expect(whole.statusCode).toBe(200);
    expect(Buffer.compare(whole.rawPayload, original)).toBe(0);
    expect(whole.headers['content-disposition']).toBe(`attachment; filename="Pages 001.cbz"; filename*=UTF-8''Pages%20001.cbz`);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers.etag).toBe(`"${pagesBook.hash}"`);
    const part = await get(`/api/v1/books/${pagesBook.id}/file`, { range: 'bytes=10-19' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${original.length}`);
    expect(Buffer.compare(part.rawPayload, original.subarray(10, 20))).toBe(0);
    const suffix = await get(`/api/v1/books/${pagesBook.id}/file`, { range: 'bytes=-5' });
    expect(Buffer.compare(suffix.rawPayload, original.subarray(original.length - 5))).toBe(0);
    const beyond = await get(`/api/v1/books/${pagesBook.id}/file`, { range: `bytes=${original.length + 10}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${original.length}`);
    expect((await get(`/api/v1/books/${pagesBook.id}/file`, { 'if-none-match': `"${pagesBook.hash}"` })).statusCode).toBe(304);
    const unicode = all.find((b) => b.title === 'Astérix 1')!;
    expect((await get(`/api/v1/books/${unicode.id}/file`)).headers['content-disposition']).toBe(
      `attachment; filename="Ast_rix 001.cbz"; filename*=UTF-8''Ast%C3%A9rix%20001.cbz`,
    );
  });
});
