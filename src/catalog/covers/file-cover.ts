import type { Config } from '../../config/schema.js';
import type { IsolatedRenderer } from '../../media/analysis/isolated-renderer.js';
import { withBook } from '../../media/formats/open-book.js';
import { resizeImage } from '../../media/images/images.js';
import type { BookFormat } from '../../media/types.js';

/** A book file's cover at thumbnail size, straight from the file (a library's thumbnail is its first book's). */
export type FileCoverReader = (
  absolutePath: string,
  format: string | null,
  coverPage: number | null,
) => Promise<{ data: Buffer; mediaType: string } | null>;

/** Reads covers from files: PDF and CBR in the renderer's worker threads, the other formats in process. */
export function fileCoverReader(config: Config, renderer: IsolatedRenderer): FileCoverReader {
  return async (absolutePath, format, _coverPage) => {
    const size = { width: config.thumbnails.width };
    const cover = renderer.handles(format)
      ? await renderer.cover(absolutePath, format, size)
      : await withBook(
          absolutePath,
          (format ?? undefined) as BookFormat | undefined,
          {},
          async (reader) => (await reader.cover(size)).data,
        );
    return resizeImage(cover, { width: config.thumbnails.width, format: config.thumbnails.format });
  };
}
