import { MediaError } from '../errors.js';

/**
 * Netpbm (PBM, PGM, PPM; P1–P6) decoded into 8-bit pixels for sharp's raw input: libvips can read these, but the
 * sharp build we use leaves its loader out, and old scans in CBR/CBZ archives carry such pages (often named
 * `.png`). The format is a text header and a plain raster, so it is decoded here.
 */
export interface PnmImage {
  data: Buffer;
  width: number;
  height: number;
  /** 1 for PBM and PGM (grey), 3 for PPM (RGB). */
  channels: 1 | 3;
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0x0c;

/** Reads whitespace-separated decimal tokens, skipping `#` comments to the end of their line. */
class TokenReader {
  constructor(
    private readonly input: Buffer,
    public at: number,
  ) {}

  private skipSpaceAndComments(): void {
    const input = this.input;
    while (this.at < input.length) {
      const byte = input[this.at]!;
      if (byte === 0x23) {
        while (this.at < input.length && input[this.at] !== 0x0a && input[this.at] !== 0x0d) this.at++;
      } else if (isSpace(byte)) {
        this.at++;
      } else {
        return;
      }
    }
  }

  /** The next decimal number; with `single`, one digit only (P1 bits may be written without separators). */
  number(what: string, single = false): number {
    this.skipSpaceAndComments();
    const start = this.at;
    let value = 0;
    while (this.at < this.input.length) {
      const byte = this.input[this.at]!;
      if (byte < 0x30 || byte > 0x39) break;
      // Saturates rather than overflows: a width of twenty digits is refused by the pixel limit all the same.
      if (value < 1e9) value = value * 10 + (byte - 0x30);
      this.at++;
      if (single) break;
    }
    if (this.at === start) throw new MediaError('corrupt', `Netpbm image: ${what} is missing`);
    return value;
  }
}

/** The first image of a Netpbm file as 8-bit samples; `maxPixels` refuses a pixel bomb before anything is allocated. */
export function decodePnm(input: Buffer, maxPixels: number): PnmImage {
  const magic = input.toString('latin1', 0, 2);
  const kind = /^P([1-6])$/.exec(magic)?.[1];
  if (!kind) throw new MediaError('corrupt', 'not a Netpbm image');
  const type = Number(kind);
  const tokens = new TokenReader(input, 2);
  const width = tokens.number('the width');
  const height = tokens.number('the height');
  const bitmap = type === 1 || type === 4;
  const maxval = bitmap ? 1 : tokens.number('the maximum value');
  if (width < 1 || height < 1) throw new MediaError('corrupt', `Netpbm image of ${width}×${height} pixels`);
  if (maxval < 1 || maxval > 65535) throw new MediaError('corrupt', `Netpbm maximum value ${maxval} is outside 1..65535`);
  if (width * height > maxPixels) throw new MediaError('too_large', `image of ${width}×${height} pixels exceeds the limit of ${maxPixels}`);
  const channels: 1 | 3 = type === 3 || type === 6 ? 3 : 1;
  const samples = width * height * channels;
  // The raster must be there before its pixels are allocated: a few bytes must not cost 75 MB. Text rasters
  // need a digit per sample and (except P1) a separator between samples.
  const rasterBytes = input.length - tokens.at;
  const needed =
    type === 4 ? Math.ceil(width / 8) * height : type >= 5 ? samples * (maxval > 255 ? 2 : 1) : type === 1 ? samples : samples * 2 - 1;
  if (rasterBytes < needed) throw new MediaError('corrupt', 'Netpbm image is truncated');
  const out = Buffer.alloc(samples);
  const scale = (value: number) => (maxval === 255 ? value : Math.round((Math.min(value, maxval) * 255) / maxval));

  if (type === 1) {
    // PBM: 1 is black.
    for (let i = 0; i < samples; i++) out[i] = tokens.number('a pixel', true) ? 0 : 255;
  } else if (type === 2 || type === 3) {
    for (let i = 0; i < samples; i++) out[i] = scale(tokens.number('a pixel'));
  } else {
    // Binary rasters start after exactly one whitespace byte following the header.
    const start = tokens.at + 1;
    if (type === 4) {
      const rowBytes = Math.ceil(width / 8);
      if (input.length < start + rowBytes * height) throw new MediaError('corrupt', 'Netpbm image is truncated');
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const bit = (input[start + y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1;
          out[y * width + x] = bit ? 0 : 255;
        }
      }
    } else {
      const bytesPerSample = maxval > 255 ? 2 : 1;
      if (input.length < start + samples * bytesPerSample) throw new MediaError('corrupt', 'Netpbm image is truncated');
      for (let i = 0; i < samples; i++) {
        out[i] = scale(bytesPerSample === 2 ? input.readUInt16BE(start + i * 2) : input[start + i]!);
      }
    }
  }
  return { data: out, width, height, channels };
}
