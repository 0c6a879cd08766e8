import { describe, expect, it } from 'vitest';
import { MediaError } from '../../src/media/errors.js';
import { resizeImage } from '../../src/media/images/images.js';
import { decodePnm } from '../../src/media/images/pnm.js';
import sharp from 'sharp';

/** A 2×2 image in each Netpbm variant: top row black then white, bottom row white then black (or red/blue in colour). */
const VARIANTS: Record<string, Buffer> = {
  P1: Buffer.from('P1\n# a comment\n2 2\n10\n01\n'),
  P1packed: Buffer.from('P1 2 2 1001'),
  P2: Buffer.from('P2 2 2 15\n0 15\n15 0\n'),
  P3: Buffer.from('P3 2 2 255  255 0 0  0 0 255  0 0 255  255 0 0'),
  P4: Buffer.concat([Buffer.from('P4 2 2\n'), Buffer.from([0b10000000, 0b01000000])]),
  P5: Buffer.concat([Buffer.from('P5 2 2 255\n'), Buffer.from([0, 255, 255, 0])]),
  P5wide: Buffer.concat([Buffer.from('P5 2 2 65535\n'), Buffer.from([0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0])]),
  P6: Buffer.concat([Buffer.from('P6 2 2 255\n'), Buffer.from([255, 0, 0, 0, 0, 255, 0, 0, 255, 255, 0, 0])]),
};

describe('Netpbm pages (P1–P6) decode to raw pixels', () => {
  for (const [name, bytes] of Object.entries(VARIANTS)) {
    it(`${name}`, () => {
      const image = decodePnm(bytes, 100);
      expect([image.width, image.height]).toEqual([2, 2]);
      if (image.channels === 1) expect([...image.data]).toEqual([0, 255, 255, 0]);
      else expect([...image.data]).toEqual([255, 0, 0, 0, 0, 255, 0, 0, 255, 255, 0, 0]);
    });
  }

  it('a truncated raster, a missing header field and a pixel bomb are refused as media errors', () => {
    expect(() => decodePnm(Buffer.from('P6 2 2 255\n\x00\x00'), 100)).toThrow(MediaError);
    expect(() => decodePnm(Buffer.from('P5 2'), 100)).toThrow(/height is missing/);
    expect(() => decodePnm(Buffer.from('P5 100000 100000 255\n'), 25_000_000)).toThrow(expect.objectContaining({ kind: 'too_large' }));
  });

  it('resizeImage takes them like any page', async () => {
    const out = await resizeImage(VARIANTS.P6!, { format: 'png' });
    expect(out.mediaType).toBe('image/png');
    const { info } = await sharp(out.data).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([2, 2]);
  });
});

describe('a Netpbm header promising more than the file holds', () => {
  it('is refused before its pixels are allocated (a 20-byte file declaring 5000×5000)', () => {
    for (const header of ['P6 5000 5000 255\n', 'P3 5000 5000 255\n1 2 3', 'P1 5000 5000\n0101', 'P4 5000 5000\n\u0000']) {
      expect(() => decodePnm(Buffer.from(header, 'latin1'), 25_000_000), header).toThrow(/truncated/);
    }
  });
});
