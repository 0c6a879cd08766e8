import { crc32 } from 'node:zlib';

/**
 * Page dimensions from the first bytes of an image, in plain JavaScript: nothing is decoded and no native
 * call is made. Analysis lists the size of every page of every book, and asking sharp (libvips) for each one
 * costs a trip to the libuv thread pool (about 1 ms a page) where this costs microseconds.
 *
 * The contract is "the same answer as `sharp(whole image).metadata()` (EXIF orientation applied), or no
 * answer": the fast path only accepts well-formed headers of the formats comics use (baseline/progressive
 * JPEG, PNG, still WebP) and answers `unknown` for everything unusual (GIF, AVIF, EXIF in PNG/WebP,
 * arithmetic or lossless JPEG, bad CRCs, out-of-range values...), which sends the caller to sharp as before.
 */
export type HeaderParse =
  | { kind: 'size'; width: number; height: number }
  /** The header goes on past the bytes given: retry with at least `bytes` bytes. */
  | { kind: 'more'; bytes: number }
  /** Not a format (or a variant) this parser vouches for: ask sharp. */
  | { kind: 'unknown' };

const UNKNOWN: HeaderParse = { kind: 'unknown' };
const more = (bytes: number): HeaderParse => ({ kind: 'more', bytes });
const size = (width: number, height: number): HeaderParse => ({ kind: 'size', width, height });

/**
 * @param bytes a prefix of the image (or all of it)
 * @param totalBytes the size of the whole image, when known (defaults to `bytes.length`)
 */
export function parseImageHeader(bytes: Buffer, totalBytes: number = bytes.length): HeaderParse {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpegHeader(bytes, totalBytes);
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a)
    return pngHeader(bytes, totalBytes);
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return webpHeader(bytes, totalBytes);
  return UNKNOWN;
}

/** Asks for `needed` bytes unless the image has no more than we were given. */
function need(needed: number, bytes: Buffer, totalBytes: number): HeaderParse {
  return needed > bytes.length && totalBytes > bytes.length ? more(Math.min(needed, totalBytes)) : UNKNOWN;
}

// ---------------------------------------------------------------------------------------------------- JPEG

/** Start-of-frame markers libjpeg decodes: baseline, extended and progressive Huffman. */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2]);
/** libjpeg's JPEG_MAX_DIMENSION. */
const JPEG_MAX_DIMENSION = 65500;

/**
 * Walks the markers up to the first scan, as libjpeg's jpeg_read_header does (which is what sharp's
 * metadata() runs), and applies the same checks to the tables on the way: a header libjpeg would refuse or
 * warn about (sharp fails on warnings) is left to sharp.
 */
function jpegHeader(b: Buffer, total: number): HeaderParse {
  let pos = 2;
  let orientation = 1;
  let exifSegments = 0;
  let frame: { width: number; height: number; ids: number[] } | null = null;
  let adobeTransform: number | null = null;
  for (;;) {
    if (pos + 4 > b.length) return need(pos + 4 + 512, b, total);
    if (b[pos] !== 0xff) return UNKNOWN; // garbage between segments: libjpeg warns
    const marker = b[pos + 1]!;
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    const length = b.readUInt16BE(pos + 2);
    if (length < 2) return UNKNOWN;
    const end = pos + 2 + length;
    const isApp = marker >= 0xe0 && marker <= 0xef;
    // Segments whose content is checked must be complete; APPn only when it is one we read.
    if (!isApp && marker !== 0xfe && end > b.length) return need(end + 512, b, total);
    const at = pos + 4; // first byte of the segment's content
    const content = length - 2;
    if (JPEG_SOF.has(marker)) {
      if (frame) return UNKNOWN; // a second frame header
      if (content < 6) return UNKNOWN;
      const precision = b[at]!;
      const height = b.readUInt16BE(at + 1);
      const width = b.readUInt16BE(at + 3);
      const components = b[at + 5]!;
      if (precision !== 8 || width === 0 || height === 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) return UNKNOWN;
      if ((components !== 1 && components !== 3 && components !== 4) || content !== 6 + 3 * components) return UNKNOWN;
      const ids: number[] = [];
      for (let c = 0; c < components; c++) {
        const id = b[at + 6 + 3 * c]!;
        const sampling = b[at + 7 + 3 * c]!;
        const h = sampling >> 4;
        const v = sampling & 15;
        if (ids.includes(id) || h < 1 || h > 4 || v < 1 || v > 4 || b[at + 8 + 3 * c]! > 3) return UNKNOWN;
        ids.push(id);
      }
      frame = { width, height, ids };
    } else if (marker === 0xc4) {
      // DHT: tables of (class/index, 16 counts, values); libjpeg refuses bogus counts and indexes.
      let left = content;
      let p = at;
      while (left > 16) {
        const index = b[p]!;
        let count = 0;
        for (let i = 1; i <= 16; i++) count += b[p + i]!;
        left -= 17;
        if (count > 256 || count > left || (index & 0x0f) > 3 || (index & 0xe0) !== 0) return UNKNOWN;
        left -= count;
        p += 17 + count;
      }
      if (left !== 0) return UNKNOWN;
    } else if (marker === 0xdb) {
      // DQT: tables of (precision/index, 64 values of 8 or 16 bits).
      let left = content;
      let p = at;
      while (left > 0) {
        const precision = b[p]! >> 4;
        const bytes = 1 + 64 * (precision ? 2 : 1);
        if ((b[p]! & 0x0f) > 3 || precision > 1 || left < bytes) return UNKNOWN;
        left -= bytes;
        p += bytes;
      }
    } else if (marker === 0xdd) {
      if (length !== 4) return UNKNOWN; // DRI
    } else if (marker === 0xda) {
      // SOS: the header ends at the first scan, whose components must belong to the frame.
      if (!frame) return UNKNOWN;
      const n = b[at]!;
      if (n < 1 || n > 4 || content !== 2 * n + 4) return UNKNOWN;
      const seen = new Set<number>();
      for (let c = 0; c < n; c++) {
        const id = b[at + 1 + 2 * c]!;
        if (!frame.ids.includes(id) || seen.has(id)) return UNKNOWN;
        seen.add(id);
      }
      // Colour transforms libjpeg does not know are a warning when it sets up decoding.
      if (adobeTransform !== null) {
        const known = frame.ids.length === 3 ? [0, 1, 2] : frame.ids.length === 4 ? [0, 2] : null;
        if (known && !known.includes(adobeTransform)) return UNKNOWN;
      }
      return orientation >= 5 ? size(frame.height, frame.width) : size(frame.width, frame.height);
    } else if (marker === 0xe0) {
      if (end > b.length && content >= 14) return need(end, b, total);
      // JFIF with a major version other than 1 is a libjpeg warning.
      if (content >= 14 && b.toString('latin1', at, at + 5) === 'JFIF\0' && b[at + 5] !== 1) return UNKNOWN;
    } else if (marker === 0xee) {
      if (content >= 12 && end > b.length) return need(end, b, total);
      if (content >= 12 && b.toString('latin1', at, at + 5) === 'Adobe') adobeTransform = b[at + 11]!;
    } else if (marker === 0xe1 && content >= 4) {
      // libvips takes EXIF from any APP1 that starts with "Exif"; only the standard "Exif\0\0" is read here.
      if (at + 4 > b.length) return need(end, b, total);
      if (b.toString('latin1', at, at + 4) === 'Exif') {
        if (++exifSegments > 1) return UNKNOWN; // which one wins is libvips' business
        if (end > b.length) return need(end, b, total);
        const found = exifOrientation(b.subarray(at, end));
        if (found === null) return UNKNOWN;
        orientation = found;
      }
    } else if (!isApp && marker !== 0xfe) {
      return UNKNOWN; // other frame types (arithmetic, lossless, hierarchical), DAC, DNL, EOI, RSTn...
    }
    pos = end;
  }
}

/**
 * The Orientation tag (0x0112) of IFD0 in an APP1 payload starting "Exif\0\0": 1 when absent, null when the
 * block is anything but plainly well-formed (then libexif's reading decides, through sharp).
 */
function exifOrientation(app1: Buffer): number | null {
  if (app1.length < 14 || app1[4] !== 0 || app1[5] !== 0) return null;
  const tiff = app1.subarray(6);
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return null;
  const ifd = u32(4);
  if (ifd < 8 || ifd + 2 > tiff.length) return null;
  const count = u16(ifd);
  if (ifd + 2 + count * 12 > tiff.length) return null;
  let orientation: number | undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (u16(entry) !== 0x0112) continue;
    if (orientation !== undefined) return null; // duplicated tag
    if (u16(entry + 2) !== 3 || u32(entry + 4) !== 1) return null; // not one SHORT
    orientation = u16(entry + 8);
  }
  if (orientation === undefined) return 1;
  return orientation >= 1 && orientation <= 8 ? orientation : null;
}

// ----------------------------------------------------------------------------------------------------- PNG

const PNG_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** libpng's default user limit on width and height. */
const PNG_MAX_DIMENSION = 1_000_000;

/** IHDR, then every chunk up to the first IDAT with its CRC checked, as libpng's png_read_info does. */
function pngHeader(b: Buffer, total: number): HeaderParse {
  if (b.length < 33) return need(33, b, total);
  if (b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') return UNKNOWN;
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  const depth = b[24]!;
  const colorType = b[25]!;
  if (width === 0 || height === 0 || width > PNG_MAX_DIMENSION || height > PNG_MAX_DIMENSION) return UNKNOWN;
  if (!PNG_DEPTHS[colorType]?.includes(depth) || b[26] !== 0 || b[27] !== 0 || b[28]! > 1) return UNKNOWN;
  if (crc32(b.subarray(12, 29)) !== b.readUInt32BE(29)) return UNKNOWN;
  let pos = 33;
  let palette = false;
  for (;;) {
    if (pos + 8 > b.length) return need(pos + 8 + 4096, b, total);
    const length = b.readUInt32BE(pos);
    const type = b.toString('latin1', pos + 4, pos + 8);
    if (length > 0x7fffffff) return UNKNOWN;
    if (type === 'IDAT') return colorType === 3 && !palette ? UNKNOWN : size(width, height);
    // Unknown critical chunks, a second IHDR, IEND before data, and EXIF (orientation) are for libpng and
    // libvips to judge.
    if (type === 'eXIf' || type === 'IHDR' || type === 'IEND' || (type !== 'PLTE' && (type.charCodeAt(0) & 0x20) === 0)) return UNKNOWN;
    const end = pos + 12 + length;
    if (end > b.length) return need(end + 8, b, total);
    if (crc32(b.subarray(pos + 4, pos + 8 + length)) !== b.readUInt32BE(pos + 8 + length)) return UNKNOWN;
    if (type === 'PLTE') palette = true;
    pos = end;
  }
}

// ---------------------------------------------------------------------------------------------------- WebP

/** Still WebP: simple lossy (VP8), simple lossless (VP8L), or extended (VP8X) without animation or EXIF. */
function webpHeader(b: Buffer, total: number): HeaderParse {
  // libwebp's demuxer wants the whole RIFF: a truncated file is for sharp to refuse.
  if (b.readUInt32LE(4) + 8 > total || b.readUInt32LE(4) % 2 !== 0) return UNKNOWN;
  if (b.length < 30) return need(30, b, total);
  const riffEnd = b.readUInt32LE(4) + 8;
  const fourcc = b.toString('latin1', 12, 16);
  if (fourcc !== 'VP8X') {
    // A simple file is exactly one image chunk.
    const length = b.readUInt32LE(16);
    return 20 + length + (length % 2) === riffEnd ? webpImageChunk(b, 12, total) : UNKNOWN;
  }
  if (b.readUInt32LE(16) < 10) return UNKNOWN;
  const flags = b[20]!;
  if (flags & (0x02 | 0x08 | 0xc1)) return UNKNOWN; // animation, EXIF (orientation), reserved bits
  const width = b.readUIntLE(24, 3) + 1;
  const height = b.readUIntLE(27, 3) + 1;
  if (width * height >= 2 ** 32) return UNKNOWN;
  // Find the image chunk (after ICCP/ALPH) and check it agrees with the canvas, as the demuxer does.
  let pos = 12 + 8 + b.readUInt32LE(16);
  for (;;) {
    if (pos + 8 > b.length) return need(pos + 30 + 4096, b, total);
    const type = b.toString('latin1', pos, pos + 4);
    if (type === 'VP8 ' || type === 'VP8L') {
      const length = b.readUInt32LE(pos + 4);
      if (pos + 8 + length + (length % 2) > riffEnd) return UNKNOWN;
      const image = webpImageChunk(b, pos, total);
      if (image.kind !== 'size') return image;
      return image.width === width && image.height === height ? image : UNKNOWN;
    }
    if (type !== 'ICCP' && type !== 'ALPH') return UNKNOWN;
    const length = b.readUInt32LE(pos + 4);
    pos += 8 + length + (length % 2);
  }
}

function webpImageChunk(b: Buffer, pos: number, total: number): HeaderParse {
  if (pos + 18 > b.length) return need(pos + 18, b, total);
  const type = b.toString('latin1', pos, pos + 4);
  const length = b.readUInt32LE(pos + 4);
  if (pos + 8 + length > total) return UNKNOWN;
  const data = pos + 8;
  if (type === 'VP8 ') {
    if (length < 10) return UNKNOWN;
    const bits = b[data]! | (b[data + 1]! << 8) | (b[data + 2]! << 16);
    const keyFrame = (bits & 1) === 0;
    const profile = (bits >> 1) & 7;
    const shown = (bits >> 4) & 1;
    const partitionLength = bits >>> 5;
    if (!keyFrame || profile > 3 || !shown || partitionLength >= length) return UNKNOWN;
    if (b[data + 3] !== 0x9d || b[data + 4] !== 0x01 || b[data + 5] !== 0x2a) return UNKNOWN;
    const width = b.readUInt16LE(data + 6) & 0x3fff;
    const height = b.readUInt16LE(data + 8) & 0x3fff;
    return width === 0 || height === 0 ? UNKNOWN : size(width, height);
  }
  if (type === 'VP8L') {
    if (length < 5 || b[data] !== 0x2f) return UNKNOWN;
    const bits = b.readUInt32LE(data + 1);
    if (bits >>> 29 !== 0) return UNKNOWN; // version
    return size((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  return UNKNOWN;
}
