import { readFile } from 'node:fs/promises';
import { getOrCreateCached } from './derived-cache.js';
import { MEDIA_TYPE_BY_FORMAT, resizeImage } from '../images/images.js';
import type { MediaLimits } from '../limits.js';
import { withBook } from '../formats/open-book.js';
import type { BookFormat } from '../types.js';

export type ThumbnailFormat = 'webp' | 'jpeg';

export const DEFAULT_THUMBNAIL_WIDTH = 400;

export interface ThumbnailOptions {
  /** Folder of derived images (under the server's data_dir). */
  cacheDir: string;
  /** SHA-256 of the book file: the cache key. */
  hash: string;
  /** The book file, read only when the thumbnail is not cached yet. */
  path: string;
  format?: BookFormat;
  /** Default 400 px wide. */
  width?: number;
  height?: number;
  /** Default WebP; use `thumbnailFormatFor(accept)` to fall back to JPEG for clients without WebP. */
  imageFormat?: ThumbnailFormat;
  limits?: Partial<MediaLimits>;
  /** Pre-read cover bytes (from an analysis with `withCover`), to skip opening the book. */
  coverImage?: Buffer;
  /** Makes the cover image when it is not cached yet (e.g. in a worker thread); by default the book is opened here. */
  readCover?: (size: { width: number; height?: number }) => Promise<Buffer>;
}

export interface Thumbnail {
  path: string;
  mediaType: string;
  /** False when served from the cache. */
  generated: boolean;
  /** The image, when it could not be written to the cache (a full disk): `path` does not exist. */
  data?: Buffer;
}

/**
 * WebP only for clients that say they take it (browsers list image/webp); e-readers that send nothing or
 * `*\/*` often cannot decode it, so they get JPEG.
 */
export function thumbnailFormatFor(accept: string | undefined): ThumbnailFormat {
  return accept && /image\/webp/i.test(accept) ? 'webp' : 'jpeg';
}

export function thumbnailVariant(width: number, height: number | undefined, format: ThumbnailFormat): string {
  return `thumb-w${width}-h${height ?? 0}.${format === 'jpeg' ? 'jpg' : 'webp'}`;
}

/** The cover of a book at thumbnail size, from the cache or made once (concurrent callers share the work). */
export async function getThumbnail(options: ThumbnailOptions): Promise<Thumbnail> {
  const width = options.width ?? DEFAULT_THUMBNAIL_WIDTH;
  const imageFormat = options.imageFormat ?? 'webp';
  const variant = thumbnailVariant(width, options.height, imageFormat);
  const size = { width, ...(options.height ? { height: options.height } : {}) };
  const { path, generated, data } = await getOrCreateCached(options.cacheDir, options.hash, variant, async () => {
    const cover =
      options.coverImage ??
      (options.readCover
        ? await options.readCover(size)
        : await withBook(options.path, options.format, { limits: options.limits }, async (reader) => (await reader.cover(size)).data));
    const resized = await resizeImage(cover, { ...size, format: imageFormat, maxInputPixels: options.limits?.maxInputPixels });
    return resized.data;
  });
  return { path, mediaType: MEDIA_TYPE_BY_FORMAT[imageFormat], generated, ...(data ? { data } : {}) };
}

/** Same as getThumbnail, with the bytes. */
export async function readThumbnail(options: ThumbnailOptions): Promise<Thumbnail & { data: Buffer }> {
  const thumbnail = await getThumbnail(options);
  return { ...thumbnail, data: thumbnail.data ?? (await readFile(thumbnail.path)) };
}
