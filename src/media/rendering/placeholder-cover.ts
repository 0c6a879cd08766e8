import { MEDIA_TYPE_BY_FORMAT } from '../images/images.js';
import { loadSharp } from '../native-modules.js';
import type { PageData } from '../types.js';
import type { ThumbnailFormat } from './thumbnails.js';

/**
 * The cover shown for a book that has none to show (no readable page, or its analysis failed): a grey page
 * with the book's format and "UNREADABLE" on it, so a feed's cover link answers an image rather than a 404
 * and a reader sees at once why the book will not open.
 *
 * The letters are drawn as strokes, not set in a font: the Docker image has no fonts, and librsvg draws text
 * without one as nothing at all.
 */

/** Each letter as SVG path data on a 4 × 6 grid (y down). Only the letters the labels need. */
const GLYPHS: Readonly<Record<string, string>> = {
  A: 'M0 6V2L2 0L4 2V6M0 3.5H4',
  B: 'M0 0V6H3L4 5V4L3 3H0M0 0H3L4 1V2L3 3',
  C: 'M4 0H1L0 1V5L1 6H4',
  D: 'M0 0V6H3L4 5V1L3 0Z',
  E: 'M4 0H0V6H4M0 3H3',
  F: 'M4 0H0V6M0 3H3',
  I: 'M1 0H3M2 0V6M1 6H3',
  L: 'M0 0V6H4',
  N: 'M0 6V0L4 6V0',
  P: 'M0 6V0H3L4 1V2L3 3H0',
  R: 'M0 6V0H3L4 1V2L3 3H0M2 3L4 6',
  U: 'M0 0V5L1 6H3L4 5V0',
  Z: 'M0 0H4L0 6H4',
};
const GLYPH_WIDTH = 4;
const GLYPH_HEIGHT = 6;
const LETTER_GAP = 2;

/** A word as one path, `scale` pixels per grid unit, centred on `centreX` with its top at `top`. */
function word(text: string, centreX: number, top: number, scale: number, stroke: string): string {
  const letters = [...text].filter((c) => GLYPHS[c] !== undefined);
  const width = (letters.length * (GLYPH_WIDTH + LETTER_GAP) - LETTER_GAP) * scale;
  const left = centreX - width / 2;
  const paths = letters.map(
    (c, i) =>
      `<path transform="translate(${(left + i * (GLYPH_WIDTH + LETTER_GAP) * scale).toFixed(1)} ${top.toFixed(1)}) scale(${scale})" d="${GLYPHS[c]}"/>`,
  );
  const strokeWidth = (Math.max(1, scale * 0.7) / scale).toFixed(3);
  return `<g fill="none" stroke="${stroke}" stroke-width="${strokeWidth}" stroke-linecap="round" stroke-linejoin="round">${paths.join('')}</g>`;
}

/** What the cover names the book as: its format, or FILE when the file was never identified. */
export function placeholderLabel(format: string | null | undefined): string {
  const label = (format ?? '').toUpperCase();
  return label && [...label].every((c) => GLYPHS[c] !== undefined) ? label : 'FILE';
}

function placeholderSvg(label: string, width: number, height: number, unreadable: boolean): string {
  const margin = Math.round(width * 0.08);
  const fold = Math.round(width * 0.18);
  const right = width - margin;
  const bottom = height - margin;
  // The format fills about half the width, "UNREADABLE" about three quarters.
  const labelScale = Math.max(1, (width * 0.5) / (label.length * (GLYPH_WIDTH + LETTER_GAP)));
  const noteScale = Math.max(1, (width * 0.72) / ('UNREADABLE'.length * (GLYPH_WIDTH + LETTER_GAP)));
  const labelTop = height * 0.36;
  const noteTop = labelTop + GLYPH_HEIGHT * labelScale + height * 0.08;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<rect width="${width}" height="${height}" fill="#d9d9d9"/>
<path d="M${margin} ${margin}H${right - fold}L${right} ${margin + fold}V${bottom}H${margin}Z" fill="#f4f4f4" stroke="#8c8c8c" stroke-width="${Math.max(1, width / 150).toFixed(1)}"/>
<path d="M${right - fold} ${margin}V${margin + fold}H${right}" fill="none" stroke="#8c8c8c" stroke-width="${Math.max(1, width / 150).toFixed(1)}"/>
${word(label, width / 2, labelTop, labelScale, '#404040')}
${unreadable ? word('UNREADABLE', width / 2, noteTop, noteScale, '#b22222') : ''}
</svg>`;
}

/** Made ones, by label, size and format: a handful of small images, each made once per process. */
const made = new Map<string, Promise<PageData>>();

/**
 * The placeholder cover `width` pixels wide (a 2:3 page) in the thumbnail format asked for: the book's format,
 * and "UNREADABLE" under it unless the book reads fine and only has no cover image (a text EPUB).
 */
export function placeholderCover(
  format: string | null | undefined,
  width: number,
  imageFormat: ThumbnailFormat,
  unreadable = true,
): Promise<PageData> {
  const label = placeholderLabel(format);
  const key = `${label}-${width}-${imageFormat}-${unreadable ? 'unreadable' : 'no-cover'}`;
  let image = made.get(key);
  if (!image) {
    image = (async () => {
      const sharp = await loadSharp();
      const height = Math.round(width * 1.5);
      const pipeline = sharp(Buffer.from(placeholderSvg(label, width, height, unreadable)));
      const data =
        imageFormat === 'jpeg' ? await pipeline.jpeg({ quality: 85 }).toBuffer() : await pipeline.webp({ quality: 82 }).toBuffer();
      return { data, mediaType: MEDIA_TYPE_BY_FORMAT[imageFormat] };
    })();
    image.catch(() => made.delete(key));
    made.set(key, image);
  }
  return image;
}
