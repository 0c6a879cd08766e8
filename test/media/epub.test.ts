import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ZipArchive } from '../../src/media/archives/zip-archive.js';
import { withBook } from '../../src/media/formats/open-book.js';
import { makeEpub } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-epub-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('EPUB reader: container.xml → OPF → spine', () => {
  it('exposes the spine documents of a reflowable book as pages', async () => {
    const path = await makeEpub(dir, 'novel.epub', { pages: 4 });
    await withBook(path, undefined, {}, async (reader) => {
      expect(reader.format).toBe('epub');
      const pages = await reader.pages();
      expect(pages.map((p) => [p.number, p.file_name, p.media_type, p.width])).toEqual([
        [1, 'OEBPS/chapter1.xhtml', 'application/xhtml+xml', null],
        [2, 'OEBPS/chapter2.xhtml', 'application/xhtml+xml', null],
        [3, 'OEBPS/chapter3.xhtml', 'application/xhtml+xml', null],
        [4, 'OEBPS/chapter4.xhtml', 'application/xhtml+xml', null],
      ]);
      const page = await reader.readPage(2);
      expect(page.mediaType).toBe('application/xhtml+xml');
      expect(page.data.toString('utf8')).toContain('Chapter 2');
    });
  });

  it('reads no chapter after the first page of prose: a reflowable book cannot be an image book', async () => {
    const path = await makeEpub(dir, 'long-novel.epub', { pages: 40 });
    const readText = vi.spyOn(ZipArchive.prototype, 'readText');
    try {
      const pages = await withBook(path, 'epub', {}, (reader) => reader.pages());
      expect(pages).toHaveLength(40);
      expect(pages.every((p) => p.media_type === 'application/xhtml+xml')).toBe(true);
      const chaptersRead = readText.mock.calls.filter(([member]) => member.name.endsWith('.xhtml'));
      expect(chaptersRead.map(([member]) => member.name)).toEqual(['OEBPS/chapter1.xhtml']);
    } finally {
      readText.mockRestore();
    }
  });

  it('exposes the images of an image-only book as pages, with dimensions', async () => {
    const path = await makeEpub(dir, 'comic.epub', { kind: 'image', pages: 3, pageSize: { width: 320, height: 480 } });
    await withBook(path, 'epub', {}, async (reader) => {
      const pages = await reader.pages();
      expect(pages.map((p) => [p.file_name, p.media_type, p.width, p.height])).toEqual([
        ['OEBPS/images/img1.png', 'image/png', 320, 480],
        ['OEBPS/images/img2.png', 'image/png', 320, 480],
        ['OEBPS/images/img3.png', 'image/png', 320, 480],
      ]);
      expect((await reader.readPage(1)).mediaType).toBe('image/png');
    });
  });

  it('takes images as pages for a declared fixed layout', async () => {
    const path = await makeEpub(dir, 'fixed.epub', { kind: 'image', fixedLayout: true, pages: 2 });
    await withBook(path, 'epub', {}, async (reader) => {
      expect(reader.listPages().every((p) => p.media_type === 'image/png')).toBe(true);
    });
  });

  it('finds the cover image: EPUB3 cover-image property', async () => {
    const path = await makeEpub(dir, 'cover3.epub', { version: 3 });
    await withBook(path, 'epub', {}, async (reader) => {
      const cover = await reader.cover();
      expect(cover).toMatchObject({ fileName: 'OEBPS/images/cover.jpg', pageNumber: null, mediaType: 'image/jpeg' });
    });
  });

  it('finds the cover image: EPUB2 <meta name="cover">', async () => {
    const path = await makeEpub(dir, 'cover2.epub', { version: 2 });
    await withBook(path, 'epub', {}, async (reader) => {
      expect(await reader.coverRef()).toEqual({ fileName: 'OEBPS/images/cover.jpg', pageNumber: null });
    });
  });

  it('falls back to the first image page when no cover is declared', async () => {
    const path = await makeEpub(dir, 'nocover.epub', { kind: 'image', cover: false });
    await withBook(path, 'epub', {}, async (reader) => {
      expect(await reader.coverRef()).toEqual({ fileName: 'OEBPS/images/img1.png', pageNumber: 1 });
    });
  });

  it('reports not_found for the cover of a text-only book without images', async () => {
    const path = await makeEpub(dir, 'textonly.epub', { cover: false });
    await withBook(path, 'epub', {}, async (reader) => {
      await expect(reader.cover()).rejects.toMatchObject({ kind: 'not_found' });
    });
  });

  it('reads the OPF metadata (EPUB2, calibre series)', async () => {
    const path = await makeEpub(dir, 'calibre.epub', {
      version: 2,
      metadata: {
        title: 'The Final Empire',
        creators: [
          { name: 'Brandon Sanderson', role: 'aut' },
          { name: 'Some Artist', role: 'ill' },
        ],
        publisher: 'Tor',
        language: 'en',
        subjects: ['Fantasy', 'Epic'],
        description: '<p>Ash falls &amp; mists rise.</p>',
        date: '2006-07-17',
        isbn: '9780765311788',
        series: 'Mistborn',
        seriesIndex: '1.0',
      },
    });
    await withBook(path, 'epub', {}, async (reader) => {
      const meta = await reader.metadata();
      expect(meta?.source).toBe('opf');
      expect(meta?.fields).toMatchObject({
        title: 'The Final Empire',
        authors: [
          { name: 'Brandon Sanderson', role: 'writer' },
          { name: 'Some Artist', role: 'illustrator' },
        ],
        publisher: 'Tor',
        language: 'en',
        genres: ['Fantasy', 'Epic'],
        summary: 'Ash falls & mists rise.',
        year: 2006,
        month: 7,
        day: 17,
        isbn: '9780765311788',
        series: 'Mistborn',
        number: '1',
        number_sort: 1,
      });
    });
  });

  it('reads the OPF metadata (EPUB3, belongs-to-collection and group-position, page direction)', async () => {
    const path = await makeEpub(dir, 'epub3.epub', {
      version: 3,
      rtl: true,
      metadata: {
        title: 'Volume Two',
        creators: [
          { name: 'Author A', role: 'aut' },
          { name: 'Translator T', role: 'trl' },
        ],
        series: 'Light Novel',
        seriesIndex: '2',
      },
    });
    await withBook(path, 'epub', {}, async (reader) => {
      const fields = (await reader.metadata())?.fields;
      expect(fields).toMatchObject({
        title: 'Volume Two',
        series: 'Light Novel',
        number: '2',
        reading_direction: 'rtl',
        authors: [
          { name: 'Author A', role: 'writer' },
          { name: 'Translator T', role: 'translator' },
        ],
      });
      expect(fields?.external_ids).toContainEqual({ source: 'uuid', id: '4b2a8c1e-0000-4000-8000-000000000001' });
    });
  });
});
