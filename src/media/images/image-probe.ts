import { bmpDimensions } from './bmp-header.js';
import { parseImageHeader } from './image-header.js';
import { sniffImageType } from './image-types.js';
import { loadSharp } from '../native-modules.js';

export interface ImageHeader {
  mediaType: string | null;
  width: number;
  height: number;
}

/** Bytes enough for the header of nearly every JPEG and PNG; other formats fall back to the whole image. */
export const PROBE_HEAD_BYTES = 64 * 1024;

/** Netpbm header: magic, then width and height as ASCII, with `#` comments allowed between tokens. */
function netpbmDimensions(head: Buffer): { width: number; height: number } | null {
  const text = head.toString('latin1', 0, Math.min(head.length, 512)).replace(/#[^\n]*\n/g, ' ');
  const match = /^P[1-6]\s+(\d+)\s+(\d+)/.exec(text);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}

/**
 * Width and height as displayed (EXIF orientation applied), from the header only: nothing is decoded.
 * Returns null when the bytes are not a readable image (or are a prefix too short to tell).
 * Common JPEG/PNG/WebP headers are read in plain JS (`image-header.ts`); anything else goes to sharp.
 * `totalBytes` is the size of the whole image when `bytes` is a prefix of it.
 */
export async function probeImage(bytes: Buffer, totalBytes: number = bytes.length): Promise<ImageHeader | null> {
  const mediaType = sniffImageType(bytes);
  if (mediaType === 'image/bmp' || mediaType === 'image/x-portable-anymap') {
    const size = mediaType === 'image/bmp' ? bmpDimensions(bytes) : netpbmDimensions(bytes);
    return size ? { mediaType, ...size } : null;
  }
  const parsed = parseImageHeader(bytes, totalBytes);
  if (parsed.kind === 'size') return { mediaType, width: parsed.width, height: parsed.height };
  try {
    // sharp is loaded on first need: most pages are answered by the plain-JS header parser.
    const sharp = await loadSharp();
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const { width, height } = meta.autoOrient ?? meta;
    if (!width || !height) return null;
    return { mediaType, width, height };
  } catch {
    return null;
  }
}
