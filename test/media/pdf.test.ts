import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBook } from '../../src/media/open-book.js';
import { renderPage } from '../../src/media/render-page.js';
import { makePdf } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bindery-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function darkPixels(image: Buffer): Promise<number> {
  const { data } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  let dark = 0;
  for (const value of data) if (value < 128) dark++;
  return dark;
}

describe('PDF reader: pdfjs + @napi-rs/canvas', () => {
  it('counts pages and gives their size at the default long edge of 1600 px', async () => {
    const path = await makePdf(dir, 'three.pdf', { pages: 3, pageSize: { width: 600, height: 800 } });
    await withBook(path, undefined, {}, async (reader) => {
      expect(reader.format).toBe('pdf');
      const pages = await reader.pages();
      expect(pages).toHaveLength(3);
      expect(pages[0]).toEqual({ number: 1, file_name: 'page-1', media_type: 'image/jpeg', size: 0, width: 1200, height: 1600 });
    });
  });

  it('renders page N to JPEG by default, with its text drawn (standard fonts are found)', async () => {
    const path = await makePdf(dir, 'text.pdf', { pages: 2, text: 'Hello Bindery' });
    await withBook(path, 'pdf', {}, async (reader) => {
      const page = await reader.readPage(2);
      expect(page.mediaType).toBe('image/jpeg');
      expect(page.data.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      const meta = await sharp(page.data).metadata();
      expect([meta.width, meta.height]).toEqual([1200, 1600]);
      expect(await darkPixels(page.data)).toBeGreaterThan(500);
    });
  });

  it('renders at a requested size and format directly', async () => {
    const path = await makePdf(dir, 'sized.pdf', { pageSize: { width: 600, height: 800 } });
    await withBook(path, 'pdf', {}, async (reader) => {
      const png = await renderPage(reader, 1, { width: 300, format: 'png' });
      expect(png.mediaType).toBe('image/png');
      const meta = await sharp(png.data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 300, 400]);
      const webp = await renderPage(reader, 1, { height: 200, format: 'webp' });
      expect((await sharp(webp.data).metadata()).format).toBe('webp');
      await expect(reader.readPage(3)).rejects.toMatchObject({ kind: 'not_found' });
    });
  });

  it('reads the document properties', async () => {
    const path = await makePdf(dir, 'props.pdf', {
      info: {
        Title: 'A Study in PDF',
        Author: 'Ada Lovelace; Charles Babbage',
        Subject: 'Engines',
        Keywords: 'math, history',
        Creator: 'LaTeX',
        CreationDate: 'D:20130512120000Z',
      },
    });
    await withBook(path, 'pdf', {}, async (reader) => {
      expect(await reader.metadata()).toEqual({
        source: 'pdf',
        fields: {
          title: 'A Study in PDF',
          authors: [
            { name: 'Ada Lovelace', role: 'writer' },
            { name: 'Charles Babbage', role: 'writer' },
          ],
          summary: 'Engines',
          tags: ['math', 'history'],
          year: 2013,
          month: 5,
          day: 12,
        },
      });
    });
  });

  it('uses page 1 as the cover, rendered at the asked size', async () => {
    const path = await makePdf(dir, 'cover.pdf');
    await withBook(path, 'pdf', {}, async (reader) => {
      const cover = await reader.cover({ width: 200 });
      expect(cover.pageNumber).toBe(1);
      expect((await sharp(cover.data).metadata()).width).toBe(200);
    });
  });
});
