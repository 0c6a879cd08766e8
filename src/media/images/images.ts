import type { Sharp } from 'sharp';
import { decodeBmp } from './bmp.js';
import { MediaError, errorMessage } from '../errors.js';
import { sniffImageType } from './image-types.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { loadSharp } from '../native-modules.js';
import { decodePnm } from './pnm.js';
import type { ImageFormat, PageData } from '../types.js';

export interface ResizeOptions {
  /** Maximum width; the aspect ratio is kept and images are never enlarged. */
  width?: number;
  /** Maximum height. */
  height?: number;
  /** Output format; by default the input's own when browsers show it (GIF included), PNG or JPEG otherwise. */
  format?: ImageFormat;
  /** 1-100, for JPEG and WebP. */
  quality?: number;
  /** Refuse images with more pixels than this (pixel bombs). */
  maxInputPixels?: number;
  /** Give up after this many seconds of libvips work. */
  timeoutSeconds?: number;
}

/**
 * What a page can be encoded as: the formats a client may ask for, and GIF, which a GIF page keeps when it is
 * only resized. Feeds declare a GIF book's pages `image/gif` and clients add a width to the same URL, so the
 * resized page must still be what the link said.
 */
export type EncodedFormat = ImageFormat | 'gif';

export const MEDIA_TYPE_BY_FORMAT: Record<EncodedFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

const DEFAULT_OUTPUT_BY_INPUT: Record<string, EncodedFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/bmp': 'png',
  'image/avif': 'jpeg',
  'image/x-portable-anymap': 'png',
};

export function formatFromMediaType(mediaType: string): EncodedFormat | null {
  const entry = Object.entries(MEDIA_TYPE_BY_FORMAT).find(([, type]) => type === mediaType);
  return entry ? (entry[0] as EncodedFormat) : null;
}

/**
 * The format a page of a type browsers do not show (BMP, AVIF, Netpbm) is converted to when it is resized or
 * converted without a format named; undefined for types that are shown (and resized) as they are.
 */
export function convertedFormatFor(mediaType: string): ImageFormat | undefined {
  if (formatFromMediaType(mediaType) !== null) return undefined;
  const format = DEFAULT_OUTPUT_BY_INPUT[mediaType];
  return format === undefined || format === 'gif' ? 'png' : format;
}

/** Translates a sharp/libvips failure into the media error vocabulary. */
export function imageError(err: unknown): MediaError {
  if (err instanceof MediaError) return err;
  const message = errorMessage(err);
  if (/pixel limit/i.test(message)) return new MediaError('too_large', `image exceeds the pixel limit (${message})`, { cause: err });
  if (/timeout/i.test(message)) return new MediaError('timeout', `image processing timed out (${message})`, { cause: err });
  if (/unsupported image format/i.test(message)) return new MediaError('unsupported', 'unsupported image format', { cause: err });
  return new MediaError('corrupt', `image cannot be decoded (${message})`, { cause: err });
}

/**
 * Tighter pixel limits for two inputs that cost far more than their bytes suggest. An SVG is rasterised at
 * the size it declares (a 16000×16000 one with a blur filter held libvips for minutes at 7 GB); no page needs
 * more than 4096² from a vector image. A BMP is decoded by Skia whole, synchronously, on the calling thread
 * (a 163-byte RLE file declaring 16383² took 3 GB); real BMP pages are scans of a few megapixels.
 */
const SVG_MAX_PIXELS = 4096 * 4096;
const BMP_MAX_PIXELS = 25_000_000;
/**
 * Plain (text, P1–P3) Netpbm rasters are parsed digit by digit on the event loop: a P3 page near the BMP limit
 * held the server for seconds. Real text scans are small; 4 Mpx (2000²) parses in well under a second.
 */
const TEXT_PNM_MAX_PIXELS = 4_000_000;

/** A Netpbm file with a text raster (P1, P2 or P3). */
function isPlainPnm(input: Buffer): boolean {
  return input[0] === 0x50 && input[1] !== undefined && input[1] >= 0x31 && input[1] <= 0x33;
}
/** libvips work per image unless the caller says otherwise: pages and covers are made per request. */
const DEFAULT_TIMEOUT_SECONDS = 30;

/** An SVG document (sharp loads it through librsvg whatever the entry's name says). */
export function looksLikeSvg(input: Buffer): boolean {
  const head = input
    .toString('utf8', 0, Math.min(input.length, 4096))
    .replace(/^\uFEFF/, '')
    .trimStart();
  return head.startsWith('<') && /<svg[\s>]/i.test(head);
}

async function loadPipeline(input: Buffer, maxPixels: number): Promise<Sharp> {
  const sharp = await loadSharp();
  const type = sniffImageType(input);
  // BMP and Netpbm are decoded outside libvips, whole and on the calling thread: both take the BMP limit.
  if (type === 'image/bmp' || type === 'image/x-portable-anymap') {
    const limit = Math.min(maxPixels, BMP_MAX_PIXELS);
    const raw =
      type === 'image/bmp'
        ? await decodeBmp(input, limit)
        : decodePnm(input, isPlainPnm(input) ? Math.min(limit, TEXT_PNM_MAX_PIXELS) : limit);
    return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
  }
  // sharp reads only the first frame of an animated GIF or WebP unless asked for more: that is the page.
  const limit = looksLikeSvg(input) ? Math.min(maxPixels, SVG_MAX_PIXELS) : maxPixels;
  return sharp(input, { limitInputPixels: limit, failOn: 'error' });
}

/** Resize to fit inside width × height (either optional), apply EXIF orientation, and encode. */
export async function resizeImage(input: Buffer, options: ResizeOptions = {}): Promise<PageData> {
  const maxPixels = options.maxInputPixels ?? DEFAULT_LIMITS.maxInputPixels;
  const inputType = sniffImageType(input);
  const format: EncodedFormat = options.format ?? (inputType ? DEFAULT_OUTPUT_BY_INPUT[inputType] : undefined) ?? 'png';
  try {
    let pipeline = (await loadPipeline(input, maxPixels)).autoOrient();
    pipeline = pipeline.timeout({ seconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS });
    if (options.width || options.height) {
      pipeline = pipeline.resize({
        width: options.width,
        height: options.height,
        fit: 'inside',
        withoutEnlargement: true,
      });
    }
    const quality = options.quality;
    switch (format) {
      case 'jpeg':
        // JPEG has no alpha: flatten on white, as a page on paper.
        pipeline = pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: quality ?? 85 });
        break;
      case 'png':
        pipeline = pipeline.png({ compressionLevel: 6 });
        break;
      case 'webp':
        // Effort 2 halves the encoding time of effort 4 for about 5% more bytes: pages are encoded per request.
        pipeline = pipeline.webp({ quality: quality ?? 82, effort: 2 });
        break;
      case 'gif':
        // Effort 1 of 10: a page is encoded per request (resized once, then cached). An 800-wide page of flat
        // colours took ~270 ms at effort 1 and ~550 ms at effort 3 (PNG: ~210 ms), all under heavy machine load.
        pipeline = pipeline.gif({ effort: 1 });
        break;
    }
    return { data: await pipeline.toBuffer(), mediaType: MEDIA_TYPE_BY_FORMAT[format] };
  } catch (err) {
    throw imageError(err);
  }
}
