import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBook } from '../../src/media/formats/open-book.js';
import { MAX_PDF_RENDER_SIDE, PDF_MAX_IMAGE_PIXELS } from '../../src/media/formats/pdf.js';
import { renderPage } from '../../src/media/rendering/render-page.js';
import type { PageData } from '../../src/media/types.js';
import { makePdf, onePagePdf, pdfStream } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-pdf-'));
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

/** Flate-compressed black (all-zero) 8-bit grey samples, compressed in chunks so the raw image is never in memory. */
async function blackGreySamples(width: number, height: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const rowsPerChunk = Math.max(1, Math.floor((4 << 20) / width));
  const block = Buffer.alloc(width * rowsPerChunk);
  for (let y = 0; y < height; y += rowsPerChunk) {
    const rows = Math.min(rowsPerChunk, height - y);
    if (!deflate.write(rows === rowsPerChunk ? block : block.subarray(0, rows * width))) {
      await new Promise((resolve) => deflate.once('drain', resolve));
    }
  }
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

/** A 100 × 100 pt page covered by one black grey image of `width` × `height` pixels. */
async function imagePagePdf(dir: string, name: string, width: number, height: number): Promise<string> {
  const image = pdfStream(
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
    await blackGreySamples(width, height),
  );
  const path = join(dir, name);
  await writeFile(
    path,
    onePagePdf('/MediaBox [0 0 100 100] /Resources << /XObject << /Im0 5 0 R >> >>', 'q 100 0 0 100 0 0 cm /Im0 Do Q', [image]),
  );
  return path;
}

/** Growth of the process's peak resident memory while `work` runs, in bytes (getrusage's ru_maxrss). */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  const before = process.resourceUsage().maxRSS;
  await work();
  return (process.resourceUsage().maxRSS - before) * 1024;
}

const MB = 1024 * 1024;

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
    const path = await makePdf(dir, 'text.pdf', { pages: 2, text: 'Hello Colophon' });
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

describe('PDF reader: hostile page content and page boxes stay within memory limits', () => {
  it('leaves out an embedded image over the pixel limit (20000 × 20000) instead of decoding it', async () => {
    const hostile = await imagePagePdf(dir, 'image-20000.pdf', 20_000, 20_000);
    expect(20_000 * 20_000).toBeGreaterThan(PDF_MAX_IMAGE_PIXELS);
    // pdfjs, canvas and sharp are loaded and warmed up first, so the measure below is the hostile page alone.
    await withBook(await makePdf(dir, 'warm-up.pdf'), 'pdf', {}, async (reader) => void (await reader.readPage(1)));
    await withBook(hostile, 'pdf', {}, async (reader) => {
      expect(await reader.pages()).toMatchObject([{ width: 1600, height: 1600 }]);
      // Page 1 is the cover: the server renders it for the page route and for thumbnails alike.
      let page: PageData | undefined;
      let cover: PageData | undefined;
      const growth = await peakRssGrowth(async () => {
        page = await renderPage(reader, 1, {});
        cover = await reader.cover({ width: 300 });
      });
      // Decoding it took 5.8 GB and 15 s.
      expect(growth).toBeLessThan(500 * MB);
      const meta = await sharp(page!.data).metadata();
      expect([meta.width, meta.height]).toEqual([1600, 1600]);
      expect((await sharp(cover!.data).metadata()).width).toBe(300);
      // The page renders, without the image: white paper.
      expect(await darkPixels(page!.data)).toBe(0);
    });
  });

  it('still draws an embedded image under the limit', async () => {
    const path = await imagePagePdf(dir, 'image-2000.pdf', 2000, 2000);
    await withBook(path, 'pdf', {}, async (reader) => {
      const page = await reader.readPage(1, { width: 100, format: 'png' });
      expect(await darkPixels(page.data)).toBe(100 * 100);
    });
  });

  it.each([
    ['a 1 × 14400 pt page box', '/MediaBox [0 0 1 14400]'],
    ['a 1 × 1000000 page box in units of 75000 pt (UserUnit)', '/MediaBox [0 0 1 1000000] /UserUnit 75000'],
  ])('caps each side of the rendered canvas, not only its area: %s', async (_, pageDict) => {
    const path = join(dir, 'tall.pdf');
    await writeFile(path, onePagePdf(pageDict, '0 0 m 1 14400 l S'));
    await withBook(path, 'pdf', {}, async (reader) => {
      const [info] = await reader.pages();
      expect(info!.width).toBeGreaterThanOrEqual(1);
      expect(info!.height).toBeLessThanOrEqual(1600);
      const growth = await peakRssGrowth(async () => {
        for (const format of ['jpeg', 'webp'] as const) {
          // The area cap alone gave a 137 × 1,965,600 canvas (about 1 GB) here, which no encoder takes.
          const page = await renderPage(reader, 1, { width: 300, format });
          const meta = await sharp(page.data).metadata();
          expect(meta.format).toBe(format);
          expect(meta.width).toBeLessThanOrEqual(300);
          expect(meta.height).toBeLessThanOrEqual(MAX_PDF_RENDER_SIDE);
        }
      });
      expect(growth).toBeLessThan(500 * MB);
    });
  });
});
