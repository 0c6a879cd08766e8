import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeSvg, resizeImage } from '../../src/media/images/images.js';
import { withBook } from '../../src/media/formats/open-book.js';
import { renderPage } from '../../src/media/rendering/render-page.js';
import { makeBmp, makeCbz, makeImage, makePixelBombPng, makeRotatedJpeg } from './fixtures.js';

const MAGIC = {
  jpeg: Buffer.from([0xff, 0xd8, 0xff]),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  webp: Buffer.from('RIFF'),
};

async function size(image: Buffer): Promise<[number | undefined, number | undefined, string]> {
  const meta = await sharp(image).metadata();
  return [meta.width, meta.height, meta.format];
}

describe('images: resize to fit, never upscale, convert, orient', () => {
  it('fits a width keeping the aspect ratio', async () => {
    const out = await resizeImage(await makeImage({ width: 1000, height: 1500 }), { width: 400 });
    expect(await size(out.data)).toEqual([400, 600, 'jpeg']);
    expect(out.mediaType).toBe('image/jpeg');
  });

  it('fits a height, and a box given both', async () => {
    const input = await makeImage({ width: 1000, height: 1500, format: 'png' });
    expect(await size((await resizeImage(input, { height: 300 })).data)).toEqual([200, 300, 'png']);
    expect(await size((await resizeImage(input, { width: 500, height: 500 })).data)).toEqual([333, 500, 'png']);
  });

  it('never enlarges', async () => {
    const out = await resizeImage(await makeImage({ width: 200, height: 300 }), { width: 800, height: 1200 });
    expect(await size(out.data)).toEqual([200, 300, 'jpeg']);
  });

  it.each(['jpeg', 'png', 'webp'] as const)('converts to %s (checked by magic bytes)', async (format) => {
    const out = await resizeImage(await makeImage({ width: 64, height: 64, format: 'png' }), { format });
    expect(out.data.subarray(0, MAGIC[format].length)).toEqual(MAGIC[format]);
    expect(out.mediaType).toBe(`image/${format}`);
  });

  it('applies the EXIF orientation', async () => {
    const rotated = await makeRotatedJpeg(300, 100);
    const out = await resizeImage(rotated, { width: 1000 });
    expect(await size(out.data)).toEqual([100, 300, 'jpeg']);
  });

  it('takes the first frame of an animated GIF', async () => {
    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((background) =>
        sharp({ create: { width: 40, height: 40, channels: 3, background } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = await sharp(frames, { join: { animated: true } })
      .gif({ loop: 0 })
      .toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(3);
    const out = await resizeImage(gif, { format: 'png' });
    expect(await size(out.data)).toEqual([40, 40, 'png']);
    const { data } = await sharp(out.data).raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
  });

  it('decodes BMP pages (which libvips does not load)', async () => {
    const out = await resizeImage(makeBmp(30, 20), { width: 15 });
    expect(await size(out.data)).toEqual([15, 10, 'png']);
  });

  it('refuses a 30000×30000 image with too_large (pixel limit)', async () => {
    await expect(resizeImage(makePixelBombPng(30000, 30000), { width: 100 })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('has a configurable pixel limit', async () => {
    const input = await makeImage({ width: 100, height: 100 });
    await expect(resizeImage(input, { width: 10, maxInputPixels: 5000 })).rejects.toMatchObject({ kind: 'too_large' });
    await expect(resizeImage(makeBmp(100, 100), { maxInputPixels: 5000 })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('rasterises an SVG page of modest size, and refuses one declaring more than 4096² pixels before drawing it', async () => {
    const svg = (w: number, h: number) =>
      Buffer.from(
        `<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><filter id="b"><feGaussianBlur stdDeviation="50"/></filter></defs><rect width="${w}" height="${h}" fill="#c33" filter="url(#b)"/></svg>`,
      );
    expect(looksLikeSvg(svg(10, 10))).toBe(true);
    expect(looksLikeSvg(Buffer.from('\uFEFF  <svg>'))).toBe(true);
    expect(looksLikeSvg(Buffer.from('<html><body>not svg</body></html>'))).toBe(false);
    const small = await resizeImage(svg(200, 300), { format: 'png' });
    expect(await size(small.data)).toEqual([200, 300, 'png']);
    // 16000² with a blur: minutes of librsvg and gigabytes, before the limit.
    await expect(resizeImage(svg(16000, 16000), { format: 'png' })).rejects.toMatchObject({ kind: 'too_large' });
    await expect(resizeImage(svg(16000, 16000), { width: 300 })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('refuses a BMP declaring more than 25 megapixels before decoding it (Skia decodes it whole)', async () => {
    // A header alone, as in a 163-byte RLE file that declared 16383² and cost 3 GB.
    const header = makeBmp(1, 1).subarray(0, 54);
    header.writeInt32LE(6000, 18);
    header.writeInt32LE(6000, 22);
    await expect(resizeImage(header, { width: 300 })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('calls undecodable bytes corrupt or unsupported', async () => {
    await expect(resizeImage(Buffer.from('definitely not an image'), { width: 10 })).rejects.toMatchObject({ kind: 'unsupported' });
    const jpeg = await makeImage({ width: 100, height: 100 });
    await expect(resizeImage(jpeg.subarray(0, 200), { width: 10 })).rejects.toMatchObject({ kind: 'corrupt' });
  });
});

describe('page rendering for the page endpoint', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'colophon-render-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the stored bytes when nothing needs to change, resizes otherwise', async () => {
    const page = await makeImage({ width: 800, height: 1200 });
    const path = await makeCbz(dir, 'render.cbz', { pages: [{ name: 'p1.jpg', data: page }] });
    await withBook(path, 'cbz', {}, async (reader) => {
      expect((await renderPage(reader, 1)).data.equals(page)).toBe(true);
      expect((await renderPage(reader, 1, { width: 1000 })).data.equals(page)).toBe(true);
      const small = await renderPage(reader, 1, { width: 200, format: 'webp' });
      expect(await size(small.data)).toEqual([200, 300, 'webp']);
      const png = await renderPage(reader, 1, { format: 'png' });
      expect(await size(png.data)).toEqual([800, 1200, 'png']);
    });
  });
});
