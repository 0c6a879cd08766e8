import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseImageHeader } from '../../src/media/images/image-header.js';
import type { HeaderParse } from '../../src/media/images/image-header.js';
import { probeImage } from '../../src/media/images/image-probe.js';
import { makeRotatedJpeg, makeScanLikePage } from './fixtures.js';

/** What sharp reports for the whole image, EXIF orientation applied: the answer the parser must give or leave to sharp. */
async function sharpSize(image: Buffer): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(image, { limitInputPixels: false }).metadata();
    const { width, height } = meta.autoOrient ?? meta;
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}

/** Parses as page probing does: a small first read, more when the header asks for it. */
function parseByPrefixes(image: Buffer, first = 64): HeaderParse {
  let length = Math.min(first, image.length);
  for (let i = 0; i < 20; i++) {
    const parsed = parseImageHeader(image.subarray(0, length), image.length);
    if (parsed.kind !== 'more') return parsed;
    expect(parsed.bytes).toBeGreaterThan(length);
    length = Math.min(image.length, parsed.bytes);
  }
  throw new Error('the parser kept asking for more');
}

const base = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({
    create: {
      width,
      height,
      channels,
      background: { r: 200, g: 120, b: 40, alpha: 0.5 },
      noise: { type: 'gaussian', mean: 128, sigma: 20 },
    },
  });

const bigExif = { IFD0: { ImageDescription: 'x'.repeat(30_000), Copyright: 'colophon' } };

const cases: Array<[string, () => Promise<Buffer>]> = [
  ['baseline JPEG', () => base(321, 479).jpeg().toBuffer()],
  ['progressive JPEG', () => base(640, 200).jpeg({ progressive: true }).toBuffer()],
  ['greyscale JPEG', () => base(100, 50).greyscale().jpeg().toBuffer()],
  ['CMYK JPEG', () => base(120, 90).toColourspace('cmyk').jpeg().toBuffer()],
  ['JPEG with an ICC profile', () => base(90, 130).withIccProfile('p3').jpeg().toBuffer()],
  ['JPEG with a large EXIF block', () => base(77, 55).withExif(bigExif).jpeg().toBuffer()],
  ['rotated JPEG (EXIF orientation 6)', () => makeRotatedJpeg(300, 200)],
  ...[1, 2, 3, 4, 5, 7, 8].map((orientation): [string, () => Promise<Buffer>] => [
    `JPEG with EXIF orientation ${orientation}`,
    () => base(64, 40).withMetadata({ orientation }).jpeg().toBuffer(),
  ]),
  ['mozjpeg JPEG', () => base(200, 300).jpeg({ mozjpeg: true }).toBuffer()],
  ['scan-like page', () => makeScanLikePage(1400, 2100, 3)],
  ['RGB PNG', () => base(333, 444).png().toBuffer()],
  ['RGBA PNG', () => base(50, 70, 4).png().toBuffer()],
  ['palette PNG', () => base(90, 60).png({ palette: true }).toBuffer()],
  ['16-bit PNG', () => base(30, 20).toColourspace('rgb16').png().toBuffer()],
  ['interlaced PNG', () => base(45, 46).png({ progressive: true }).toBuffer()],
  ['PNG with an ICC profile', () => base(80, 40).withIccProfile('p3').png().toBuffer()],
  ['PNG with EXIF orientation', () => base(80, 40).withMetadata({ orientation: 6 }).png().toBuffer()],
  ['lossy WebP', () => base(500, 301).webp().toBuffer()],
  ['lossless WebP', () => base(257, 129).webp({ lossless: true }).toBuffer()],
  ['WebP with alpha', () => base(100, 120, 4).webp().toBuffer()],
  ['WebP with an ICC profile', () => base(100, 60).withIccProfile('p3').webp().toBuffer()],
  ['WebP with EXIF orientation', () => base(100, 60).withMetadata({ orientation: 6 }).webp().toBuffer()],
  ['GIF', () => base(60, 40).gif().toBuffer()],
  ['AVIF', () => base(64, 48).avif().toBuffer()],
];

describe('page dimensions from image headers in plain JS', () => {
  const images = new Map<string, Buffer>();
  beforeAll(async () => {
    for (const [name, make] of cases) images.set(name, await make());
  });

  it.each(cases.map(([name]) => name))('%s: same size as sharp, or left to sharp', async (name) => {
    const image = images.get(name)!;
    const expected = await sharpSize(image);
    const parsed = parseByPrefixes(image);
    if (parsed.kind === 'size') expect({ width: parsed.width, height: parsed.height }).toEqual(expected);
    // Whatever path it takes, probeImage answers exactly what sharp does.
    const probed = await probeImage(image);
    expect(probed && { width: probed.width, height: probed.height }).toEqual(expected);
  });

  it('reads the common page formats without sharp', () => {
    for (const name of [
      'baseline JPEG',
      'progressive JPEG',
      'rotated JPEG (EXIF orientation 6)',
      'JPEG with a large EXIF block',
      'scan-like page',
      'RGB PNG',
      'palette PNG',
      'lossy WebP',
      'lossless WebP',
      'WebP with alpha',
    ]) {
      expect(parseByPrefixes(images.get(name)!).kind, name).toBe('size');
    }
  });

  it('leaves GIF, AVIF, animated WebP and EXIF in PNG/WebP to sharp', () => {
    for (const name of ['GIF', 'AVIF', 'WebP with EXIF orientation']) {
      expect(parseByPrefixes(images.get(name)!).kind, name).toBe('unknown');
    }
    const animated = Buffer.from(images.get('WebP with alpha')!);
    expect(animated.toString('latin1', 12, 16)).toBe('VP8X');
    animated[20] = animated[20]! | 0x02; // the VP8X animation flag
    expect(parseImageHeader(animated).kind).toBe('unknown');
  });

  it('asks for more bytes when a JPEG header runs past the prefix', () => {
    const image = images.get('JPEG with a large EXIF block')!;
    const parsed = parseImageHeader(image.subarray(0, 8 * 1024), image.length);
    expect(parsed.kind).toBe('more');
  });

  it('leaves damaged headers to sharp: a PNG with a bad IHDR CRC, a truncated WebP', () => {
    const png = Buffer.from(images.get('RGB PNG')!);
    png[29] = (png[29]! + 1) & 0xff;
    expect(parseImageHeader(png).kind).toBe('unknown');
    const webp = images.get('lossy WebP')!;
    expect(parseImageHeader(webp.subarray(0, webp.length - 10)).kind).toBe('unknown');
  });

  it('never disagrees with sharp on damaged bytes', async () => {
    // Change a byte in the header area of each format: where the parser still answers, sharp must read the
    // image and agree (anything libjpeg, libpng or libwebp would refuse is left to sharp).
    let random = 12345;
    const next = () => (random = (random * 1103515245 + 12345) & 0x7fffffff);
    for (const name of [
      'baseline JPEG',
      'progressive JPEG',
      'CMYK JPEG',
      'JPEG with EXIF orientation 8',
      'RGB PNG',
      'palette PNG',
      'PNG with an ICC profile',
      'lossy WebP',
      'lossless WebP',
      'WebP with alpha',
    ]) {
      const original = images.get(name)!;
      for (let i = 0; i < 60; i++) {
        const damaged = Buffer.from(original);
        const at = next() % Math.min(original.length, 600);
        damaged[at] = next() & 0xff;
        const parsed = parseImageHeader(damaged);
        if (parsed.kind !== 'size') continue;
        const expected = await sharpSize(damaged);
        expect({ width: parsed.width, height: parsed.height }, `${name}, byte ${at}`).toEqual(expected);
      }
    }
  });
});
