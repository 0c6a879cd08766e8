import { describe, expect, it } from 'vitest';
import { openBook, withBook } from '../../src/media/formats/open-book.js';
import { realFixture } from './real-fixtures.js';

describe('CBR reader on the real RAR5 fixtures (test/fixtures)', () => {
  it('leaves the process-wide error listeners as they were (the WASM glue adds rethrowing ones)', async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    await withBook(realFixture('test_comic.cbr'), 'cbr', {}, async (reader) => {
      expect(reader.listPages()).toHaveLength(3);
    });
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(before);
  });

  it('lists the pages in natural order with their sizes and dimensions', async () => {
    await withBook(realFixture('test_comic.cbr'), undefined, {}, async (reader) => {
      expect(reader.format).toBe('cbr');
      const pages = await reader.pages();
      expect(pages.map((p) => p.file_name)).toEqual(['page001.png', 'page002.png', 'page003.png']);
      expect(pages.map((p) => p.number)).toEqual([1, 2, 3]);
      // The fixture's "PNG" pages are 1×1 netpbm images; the media type says what the bytes are.
      expect(pages.every((p) => p.size === 20 && p.width === 1 && p.height === 1)).toBe(true);
      expect(pages[0]?.media_type).toBe('image/x-portable-anymap');
    });
  });

  it('reads one page without extracting anything to disk', async () => {
    await withBook(realFixture('test_comic.cbr'), 'cbr', {}, async (reader) => {
      const page = await reader.readPage(2);
      expect(page.data.length).toBe(20);
      expect(page.data.subarray(0, 2).toString('latin1')).toBe('P6');
      await expect(reader.readPage(4)).rejects.toMatchObject({ kind: 'not_found' });
    });
  });

  it('has no embedded metadata without ComicInfo.xml', async () => {
    await withBook(realFixture('test_comic.cbr'), 'cbr', {}, async (reader) => {
      expect(await reader.metadata()).toBeNull();
    });
  });

  it('reads ComicInfo.xml from the archive and skips it as a page', async () => {
    await withBook(realFixture('test_comic_with_info.cbr'), 'cbr', {}, async (reader) => {
      expect(reader.listPages().map((p) => p.file_name)).toEqual(['page001.png', 'page002.png', 'page003.png']);
      const meta = await reader.metadata();
      expect(meta).toEqual({
        source: 'comicinfo',
        fields: {
          title: 'Test Comic',
          series: 'Test Series',
          number: '1',
          number_sort: 1,
          volume: 1,
          year: 2024,
          publisher: 'Test Publisher',
          authors: [{ name: 'Test Writer', role: 'writer' }],
          page_count: 3,
        },
      });
      expect(await reader.coverRef()).toEqual({ pageNumber: 1, fileName: 'page001.png' });
    });
  });

  it('serves concurrent reads from several readers (the WASM extractor is shared)', async () => {
    const readers = await Promise.all([openBook(realFixture('test_comic.cbr')), openBook(realFixture('test_comic_with_info.cbr'))]);
    try {
      const pages = await Promise.all([1, 2, 3, 1, 2, 3].map((n, i) => readers[i % 2]!.readPage(n)));
      const first = pages.map((page) => page.data.toString('hex'));
      // Same page numbers from the two archives hold the same pixels; a mix-up would break this pairing.
      expect(first[0]).toBe(first[3]);
      expect(first[1]).toBe(first[4]);
      expect(first[0]).not.toBe(first[1]);
    } finally {
      await Promise.all(readers.map((reader) => reader.close()));
    }
  });
});
