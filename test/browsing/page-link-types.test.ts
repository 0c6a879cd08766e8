import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { api, scannedLibrary, createCatalogApp, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { enableKomga, send } from '../komga/helpers.js';
import { makeBmp, makeCbz, makeImage, makePdf } from '../media/fixtures.js';
import { get, linkOf, parseXml, PSE_REL, type AtomEntry } from '../opds/helpers.js';

/**
 * Issue 16 (5, 6): a page URL answers the type its link declares, with or without a width, on every API that
 * links pages (native, OPDS 1.2 PSE, OPDS 2.0, Komga). A GIF book's PSE link says image/gif, so its resized
 * pages stay GIF; pages that are Netpbm images under a `.png` name (old CBR/CBZ scans) are decoded, so the
 * converted and resized links advertised for them work.
 */

/** A 24-bit PPM (P6): a header, then RGB bytes. */
function ppm(width: number, height: number, rgb: [number, number, number]): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) pixels.set(rgb, i * 3);
  return Buffer.concat([Buffer.from(`P6\n# scanned 1998\n${width} ${height}\n255\n`, 'latin1'), pixels]);
}

/** A 1-bit PBM (P4): rows of packed bits, 1 is black. Stripes of black and white columns. */
function pbm(width: number, height: number): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const bits = Buffer.alloc(rowBytes * height, 0b11110000);
  return Buffer.concat([Buffer.from(`P4 ${width} ${height}\n`, 'latin1'), bits]);
}

let t: CatalogTestApp;
let auth: Headers;
let gifBook: string;
let pnmBook: string;
let bmpBook: string;
let pdfBook: string;
let textScanBook: string;

/** A plain (P1) PBM of `width` × `height`: one ASCII digit per pixel, all white. */
function plainPbm(width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(`P1\n${width} ${height}\n`, 'latin1'), Buffer.alloc(width * height, '0')]);
}

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  await scannedLibrary(t, async (dir) => {
    await makeCbz(path.join(dir, 'Gifs'), 'Gif Book 001.cbz', {
      pages: [
        { name: '001.gif', width: 600, height: 900, format: 'gif', color: '#3366cc' },
        { name: '002.gif', width: 600, height: 900, format: 'gif', color: '#cc6633' },
      ],
      comicInfo: { Series: 'Gifs', Number: '1', Title: 'Gif Book' },
    });
    await makeCbz(path.join(dir, 'Scans'), 'Netpbm 001.cbz', {
      pages: [
        { name: '001.png', data: ppm(600, 900, [200, 30, 30]) },
        { name: '002.png', data: pbm(600, 900) },
        { name: '003.jpg', data: await makeImage({ width: 600, height: 900 }) },
      ],
      comicInfo: { Series: 'Scans', Number: '1', Title: 'Netpbm Book' },
    });
    await makeCbz(path.join(dir, 'Bitmaps'), 'Bitmap 001.cbz', {
      pages: [
        { name: '001.bmp', data: makeBmp(400, 600) },
        { name: '002.avif', width: 400, height: 600, format: 'avif' },
      ],
      comicInfo: { Series: 'Bitmaps', Number: '1', Title: 'Bitmap Book' },
    });
    await makeCbz(path.join(dir, 'Text Scans'), 'Text Scan 001.cbz', {
      pages: [{ name: '001.png', data: plainPbm(2200, 2200) }],
      comicInfo: { Series: 'Text Scans', Number: '1', Title: 'Text Scan Book' },
    });
    await makePdf(path.join(dir, 'Documents'), 'A4 Document.pdf', {
      pages: 1,
      pageSize: { width: 595, height: 842 },
      info: { Title: 'A4 Document' },
    });
  });
  const books = (await api<Paged<{ id: string; title: string }>>(t, 'GET', '/api/v1/books?pageSize=100')).body.data;
  gifBook = books.find((b) => b.title === 'Gif Book')!.id;
  pnmBook = books.find((b) => b.title === 'Netpbm Book')!.id;
  bmpBook = books.find((b) => b.title === 'Bitmap Book')!.id;
  pdfBook = books.find((b) => b.title === 'A4 Document')!.id;
  textScanBook = books.find((b) => b.title === 'Text Scan Book')!.id;
  const reader = await createUser(t, 'reader');
  auth = basic(reader.username, reader.password);
});
afterAll(() => t.close());

async function image(
  url: string,
  headers: Headers = auth,
): Promise<{ type: string; format: string | undefined; width: number | undefined }> {
  const res = await get(t, url, headers);
  expect(res.status, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
  const meta = await sharp(res.raw).metadata();
  return { type: String(res.headers['content-type']), format: meta.format, width: meta.width };
}

async function opds1Entry(bookId: string): Promise<AtomEntry> {
  const res = await get(t, `/opds/v1.2/books/${bookId}`, auth);
  expect(res.status).toBe(200);
  return (parseXml(res.body).entry as AtomEntry[])[0]!;
}

const fill = (template: string, page: number, width: number) =>
  template.replace('{pageNumber}', String(page)).replace('{maxWidth}', String(width)).replace('{&maxWidth}', `&maxWidth=${width}`);

interface Opds2Publication {
  links: Array<{ rel?: string; href: string; type?: string }>;
}
interface Divina {
  readingOrder: Array<{ href: string; type: string; width?: number }>;
}

describe('a resized GIF page is still the GIF its link declares', () => {
  it('native: ?width=300 answers image/gif, 300 wide', async () => {
    expect(await image(`/api/v1/books/${gifBook}/pages/1?width=300`, t.headers)).toEqual({ type: 'image/gif', format: 'gif', width: 300 });
    expect(await image(`/api/v1/books/${gifBook}/pages/2`, t.headers)).toEqual({ type: 'image/gif', format: 'gif', width: 600 });
  });

  it('OPDS 1.2: the PSE link declares image/gif and its URL with maxWidth=300 answers image/gif', async () => {
    const pse = linkOf((await opds1Entry(gifBook)).link, PSE_REL)!;
    expect(pse['@type']).toBe('image/gif');
    expect(pse['@href']).not.toContain('convert=');
    for (const page of [0, 1]) {
      expect(await image(fill(pse['@href'], page, 300))).toEqual({ type: 'image/gif', format: 'gif', width: 300 });
    }
  });

  it('OPDS 2.0: the PSE template (image/jpeg) and the DiViNa reading order (image/gif) answer what they declare', async () => {
    const pub = (await send<Opds2Publication>(t, 'GET', `/opds/v2/books/${gifBook}`, auth)).body;
    const pse = pub.links.find((l) => l.rel === PSE_REL)!;
    expect(await image(fill(pse.href, 0, 300))).toMatchObject({ type: pse.type, width: 300 });
    const manifest = (await send<Divina>(t, 'GET', `/opds/v2/books/${gifBook}/manifest`, auth)).body;
    for (const item of manifest.readingOrder) {
      expect(item.type).toBe('image/gif');
      expect(await image(item.href)).toMatchObject({ type: 'image/gif' });
    }
  });

  it('Komga: the page list says image/gif and the page answers it; the page thumbnail is the JPEG Komga promises', async () => {
    const pages = (await send<Array<{ mediaType: string }>>(t, 'GET', `/komga/api/v1/books/${gifBook}/pages`, auth)).body;
    expect(pages.map((p) => p.mediaType)).toEqual(['image/gif', 'image/gif']);
    expect(await image(`/komga/api/v1/books/${gifBook}/pages/1`)).toMatchObject({ type: 'image/gif' });
    expect(await image(`/komga/api/v1/books/${gifBook}/pages/1/thumbnail`)).toMatchObject({ type: 'image/jpeg', width: 300 });
  });
});

describe('Netpbm pages named .png are decoded, so every link advertised for them works', () => {
  it('the page list names them by what they are, with their size', async () => {
    const pages = (await api<Array<{ media_type: string; width: number; height: number }>>(t, 'GET', `/api/v1/books/${pnmBook}/pages`))
      .body;
    expect(pages.map((p) => [p.media_type, p.width, p.height])).toEqual([
      ['image/x-portable-anymap', 600, 900],
      ['image/x-portable-anymap', 600, 900],
      ['image/jpeg', 600, 900],
    ]);
  });

  it('native: resized to PNG by default, converted to the format asked for', async () => {
    expect(await image(`/api/v1/books/${pnmBook}/pages/1?width=300`, t.headers)).toEqual({ type: 'image/png', format: 'png', width: 300 });
    expect(await image(`/api/v1/books/${pnmBook}/pages/2?format=jpeg`, t.headers)).toEqual({
      type: 'image/jpeg',
      format: 'jpeg',
      width: 600,
    });
    expect(await image(`/api/v1/books/${pnmBook}/pages/1?format=webp&width=100`, t.headers)).toEqual({
      type: 'image/webp',
      format: 'webp',
      width: 80,
    }); // snapped down to a size step
  });

  it('the decoded pixels are the page: the PPM is red, the PBM has black and white stripes', async () => {
    const red = await sharp((await get(t, `/api/v1/books/${pnmBook}/pages/1?format=png`)).raw)
      .raw()
      .toBuffer();
    expect([...red.subarray(0, 3)]).toEqual([200, 30, 30]);
    const stripes = await sharp((await get(t, `/api/v1/books/${pnmBook}/pages/2?format=png`)).raw)
      .greyscale()
      .raw()
      .toBuffer();
    expect([...stripes.subarray(0, 8)]).toEqual([0, 0, 0, 0, 255, 255, 255, 255]);
  });

  it('OPDS 1.2: the PSE link (image/jpeg, convert=jpeg) answers JPEG for every page, with or without maxWidth', async () => {
    const pse = linkOf((await opds1Entry(pnmBook)).link, PSE_REL)!;
    expect(pse['@type']).toBe('image/jpeg');
    expect(pse['@href']).toContain('convert=jpeg');
    for (const page of [0, 1, 2]) {
      expect(await image(fill(pse['@href'], page, 300))).toEqual({ type: 'image/jpeg', format: 'jpeg', width: 300 });
      expect(await image(pse['@href'].replace('{pageNumber}', String(page)))).toEqual({ type: 'image/jpeg', format: 'jpeg', width: 600 });
    }
  });

  it('OPDS 2.0: the PSE template answers JPEG for a Netpbm page', async () => {
    const pub = (await send<Opds2Publication>(t, 'GET', `/opds/v2/books/${pnmBook}`, auth)).body;
    const pse = pub.links.find((l) => l.rel === PSE_REL)!;
    expect(await image(fill(pse.href, 0, 300))).toEqual({ type: 'image/jpeg', format: 'jpeg', width: 300 });
  });

  it('Komga: ?convert=png (what Mihon asks for types it cannot show) and the page thumbnail work', async () => {
    expect(await image(`/komga/api/v1/books/${pnmBook}/pages/1?convert=png`)).toEqual({ type: 'image/png', format: 'png', width: 600 });
    expect(await image(`/komga/api/v1/books/${pnmBook}/pages/2?convert=jpeg`)).toEqual({ type: 'image/jpeg', format: 'jpeg', width: 600 });
    expect(await image(`/komga/api/v1/books/${pnmBook}/pages/1/thumbnail`)).toMatchObject({ type: 'image/jpeg', width: 300 });
  });
});

describe('a page of a type browsers do not show is converted whenever a size or format is asked, even at or above its own size', () => {
  it('Netpbm, BMP and AVIF pages at ?width=1080 (wider than the page) answer PNG / JPEG at their own width, never the raw bytes', async () => {
    expect(await image(`/api/v1/books/${pnmBook}/pages/1?width=1080`, t.headers)).toEqual({ type: 'image/png', format: 'png', width: 600 });
    expect(await image(`/api/v1/books/${pnmBook}/pages/2?height=5000`, t.headers)).toEqual({
      type: 'image/png',
      format: 'png',
      width: 600,
    });
    expect(await image(`/api/v1/books/${bmpBook}/pages/1?width=1080`, t.headers)).toEqual({ type: 'image/png', format: 'png', width: 400 });
    expect(await image(`/api/v1/books/${bmpBook}/pages/2?width=1080`, t.headers)).toEqual({
      type: 'image/jpeg',
      format: 'jpeg',
      width: 400,
    });
    // Without parameters the page is still the stored entry, byte for byte.
    expect((await get(t, `/api/v1/books/${bmpBook}/pages/1`, t.headers)).headers['content-type']).toBe('image/bmp');
  });
});

describe('PDF pages are drawn at the size asked, above their default rendering', () => {
  it('?width=2400 on an A4 page renders 2048 wide (snapped down), not the stored 1600 px default', async () => {
    const pages = (await api<Array<{ width: number; height: number }>>(t, 'GET', `/api/v1/books/${pdfBook}/pages`)).body;
    expect(Math.max(pages[0]!.width, pages[0]!.height)).toBe(1600);
    expect(await image(`/api/v1/books/${pdfBook}/pages/1?width=2400`, t.headers)).toEqual({
      type: 'image/jpeg',
      format: 'jpeg',
      width: 2048,
    });
    expect((await image(`/api/v1/books/${pdfBook}/pages/1?width=400`, t.headers)).width).toBe(400);
  });
});

describe('image errors carry no image validators', () => {
  it('a page refused as too large (a plain-text PBM above the text raster limit) is a 413 without ETag or Cache-Control', async () => {
    const res = await get(t, `/api/v1/books/${textScanBook}/pages/1?width=300`, t.headers);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'PayloadTooLarge' });
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).not.toBe('private, max-age=3600');
  });
});

describe('OPDS 2.0 DiViNa links pages of types readers cannot show converted', () => {
  it('the reading order declares PNG / JPEG for Netpbm, BMP and AVIF pages, and each link answers the type it declares', async () => {
    for (const [book, expected] of [
      [pnmBook, ['image/png', 'image/png', 'image/jpeg']],
      [bmpBook, ['image/png', 'image/jpeg']],
    ] as const) {
      const manifest = (await send<Divina>(t, 'GET', `/opds/v2/books/${book}/manifest`, auth)).body;
      expect(manifest.readingOrder.map((p) => p.type)).toEqual(expected);
      for (const page of manifest.readingOrder) {
        expect(await image(page.href)).toMatchObject({ type: page.type, width: page.width });
      }
    }
  });
});
