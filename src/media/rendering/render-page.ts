import { probeImage } from '../images/image-probe.js';
import { formatFromMediaType, resizeImage } from '../images/images.js';
import type { MediaLimits } from '../limits.js';
import { withBook } from '../formats/open-book.js';
import type { BookFormat, BookReader, CoverRef, ImageFormat, PageData } from '../types.js';

export interface RenderPageOptions {
  width?: number;
  height?: number;
  format?: ImageFormat;
  signal?: AbortSignal;
  maxInputPixels?: number;
}

/**
 * Page `n` at most `width` × `height` in `format`. The stored bytes go out untouched when nothing needs to
 * change (the common case of a reader asking for the page as is); PDF pages are rendered at the asked size
 * directly rather than rendered large and shrunk.
 */
export async function renderPage(reader: BookReader, n: number, options: RenderPageOptions = {}): Promise<PageData> {
  const { width, height, format, signal } = options;
  const page = await reader.readPage(n, { width, height, format, signal });
  if (reader.format === 'pdf' || !page.mediaType.startsWith('image/')) return page;
  if (!width && !height && !format) return page;
  const sourceFormat = formatFromMediaType(page.mediaType);
  const formatOk = format === undefined ? sourceFormat !== null : sourceFormat === format;
  if (formatOk && (width || height)) {
    const header = await probeImage(page.data);
    const fits = header !== null && (!width || header.width <= width) && (!height || header.height <= height);
    if (fits) return page;
  } else if (formatOk) {
    return page;
  }
  return resizeImage(page.data, { width, height, format, maxInputPixels: options.maxInputPixels });
}

/** The cover image of a book file. */
export async function getCover(
  path: string,
  format?: BookFormat,
  options: { limits?: Partial<MediaLimits>; width?: number; height?: number } = {},
): Promise<PageData & CoverRef> {
  return withBook(path, format, { limits: options.limits }, (reader) => reader.cover({ width: options.width, height: options.height }));
}
