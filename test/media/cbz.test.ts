import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBook, withBook } from '../../src/media/formats/open-book.js';
import { comicInfoXml, makeBmp, makeCbz, makeImage } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-cbz-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CBZ reader: pages from the central directory, in natural order', () => {
  it.each([
    ['stored', true],
    ['deflated', false],
  ])('lists pages with number, name, media type, size and dimensions (%s)', async (_label, store) => {
    const path = await makeCbz(dir, `sizes-${String(store)}.cbz`, {
      store,
      pages: [
        { name: 'page10.jpg', width: 300, height: 400 },
        { name: 'page2.png', width: 500, height: 700 },
        { name: 'page1.webp', width: 640, height: 960 },
        { name: 'page3.gif', width: 120, height: 90 },
        { name: 'page4.avif', width: 64, height: 32 },
        { name: 'page5.bmp', data: makeBmp(20, 10) },
      ],
    });
    await withBook(path, 'cbz', {}, async (reader) => {
      const pages = await reader.pages();
      expect(pages.map((p) => [p.number, p.file_name, p.media_type, p.width, p.height])).toEqual([
        [1, 'page1.webp', 'image/webp', 640, 960],
        [2, 'page2.png', 'image/png', 500, 700],
        [3, 'page3.gif', 'image/gif', 120, 90],
        [4, 'page4.avif', 'image/avif', 64, 32],
        [5, 'page5.bmp', 'image/bmp', 20, 10],
        [6, 'page10.jpg', 'image/jpeg', 300, 400],
      ]);
      expect(pages.every((page) => page.size > 0)).toBe(true);
    });
  });

  it('reads page N as the exact stored bytes', async () => {
    const image = await makeImage({ width: 50, height: 60, format: 'png' });
    const path = await makeCbz(dir, 'bytes.cbz', {
      pages: [
        { name: 'a.jpg', width: 10, height: 10 },
        { name: 'b.png', data: image },
      ],
    });
    await withBook(path, undefined, {}, async (reader) => {
      const page = await reader.readPage(2);
      expect(page.mediaType).toBe('image/png');
      expect(page.data.equals(image)).toBe(true);
      await expect(reader.readPage(3)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(reader.readPage(0)).rejects.toMatchObject({ kind: 'not_found' });
    });
  });

  it('flattens nested folders in order and skips non-image entries', async () => {
    const path = await makeCbz(dir, 'nested.cbz', {
      pages: [
        { name: 'Chapter 10/01.jpg', width: 10, height: 10 },
        { name: 'Chapter 2/01.jpg', width: 10, height: 10 },
        { name: 'Chapter 2/02.jpg', width: 10, height: 10 },
        { name: 'Chapter 1/01.jpg', width: 10, height: 10 },
      ],
      comicInfo: { Title: 'Nested' },
      extra: [
        { name: 'thumbs.db', data: 'x' },
        { name: '__MACOSX/Chapter 1/._01.jpg', data: 'x' },
        { name: '.DS_Store', data: 'x' },
        { name: '.hidden/01.jpg', data: 'x' },
        { name: 'notes.txt', data: 'x' },
      ],
    });
    await withBook(path, 'cbz', {}, async (reader) => {
      expect(reader.listPages().map((p) => p.file_name)).toEqual([
        'Chapter 1/01.jpg',
        'Chapter 2/01.jpg',
        'Chapter 2/02.jpg',
        'Chapter 10/01.jpg',
      ]);
    });
  });

  it('reads ComicInfo.xml as embedded metadata', async () => {
    const path = await makeCbz(dir, 'info.cbz', {
      comicInfo: { Title: 'The Title', Series: 'Saga', Number: '7', Writer: 'Brian K. Vaughan' },
    });
    await withBook(path, 'cbz', {}, async (reader) => {
      const meta = await reader.metadata();
      expect(meta?.source).toBe('comicinfo');
      expect(meta?.fields).toMatchObject({
        title: 'The Title',
        series: 'Saga',
        number: '7',
        authors: [{ name: 'Brian K. Vaughan', role: 'writer' }],
      });
    });
  });

  it('has no embedded metadata without ComicInfo.xml', async () => {
    const path = await makeCbz(dir, 'plain.cbz');
    await withBook(path, 'cbz', {}, async (reader) => {
      expect(await reader.metadata()).toBeNull();
    });
  });

  it('uses the ComicInfo FrontCover page as the cover, page 1 otherwise', async () => {
    const pagesXml = '<Pages><Page Image="0" Type="InnerCover"/><Page Image="1" Type="FrontCover"/></Pages>';
    const withHint = await makeCbz(dir, 'front.cbz', { pages: 3, comicInfo: comicInfoXml({ Title: 'x' }, pagesXml) });
    await withBook(withHint, 'cbz', {}, async (reader) => {
      expect(await reader.coverRef()).toEqual({ pageNumber: 2, fileName: 'page002.jpg' });
      expect((await reader.cover()).mediaType).toBe('image/jpeg');
    });
    await withBook(await makeCbz(dir, 'nohint.cbz', { pages: 2 }), 'cbz', {}, async (reader) => {
      expect(await reader.coverRef()).toEqual({ pageNumber: 1, fileName: 'page001.jpg' });
    });
  });

  it('locates pages by the stored names without re-listing', async () => {
    const path = await makeCbz(dir, 'known.cbz', { pages: 3 });
    const reader = await openBook(path, 'cbz', { knownPages: ['page003.jpg', 'page001.jpg'] });
    try {
      expect(reader.listPages().map((p) => p.file_name)).toEqual(['page003.jpg', 'page001.jpg']);
      expect((await reader.readPage(1)).data.equals(await withBook(path, 'cbz', {}, async (r) => (await r.readPage(3)).data))).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it('stays open after probing page headers of a deflated archive', async () => {
    const path = await makeCbz(dir, 'probe-then-read.cbz', { pages: 4, noise: true, pageSize: { width: 400, height: 400 }, store: false });
    await withBook(path, 'cbz', {}, async (reader) => {
      expect((await reader.pages()).map((p) => p.width)).toEqual([400, 400, 400, 400]);
      expect((await reader.readPage(4)).data.length).toBe(reader.listPages()[3]?.size);
      expect((await reader.pages()).length).toBe(4);
    });
  });

  it('keeps the archive open for random access: reads in any order, concurrently', async () => {
    const path = await makeCbz(dir, 'random.cbz', { pages: 8 });
    await withBook(path, 'cbz', {}, async (reader) => {
      const reads = await Promise.all([5, 1, 8, 3, 3].map((n) => reader.readPage(n)));
      expect(reads.every((page) => page.data.length > 0)).toBe(true);
    });
    // Nothing was extracted next to the book.
    expect((await readFile(path)).length).toBeGreaterThan(0);
  });
});
