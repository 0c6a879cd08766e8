import { throwIfAborted } from './errors.js';
import { PROBE_HEAD_BYTES, probeImage } from './image-probe.js';
import type { PageEntry, PageInfo } from './types.js';

export interface PageBytesSource {
  /** The first `bytes` of the page, or all of it when shorter. */
  head(page: PageEntry, bytes: number): Promise<Buffer>;
  whole(page: PageEntry): Promise<Buffer>;
}

/**
 * Adds width and height to each page from its header. Most JPEG and PNG headers sit in the first 64 KiB, so a
 * page is read whole only when its prefix did not tell (WebP, GIF, JPEG with large EXIF blocks).
 * The media type is corrected from the bytes when the name lied (a JPEG called page.png).
 */
export async function probePages(pages: readonly PageEntry[], source: PageBytesSource, signal?: AbortSignal): Promise<PageInfo[]> {
  const result: PageInfo[] = [];
  for (const page of pages) {
    throwIfAborted(signal);
    let header = await probeImage(await source.head(page, PROBE_HEAD_BYTES));
    if (!header && page.size > PROBE_HEAD_BYTES) header = await probeImage(await source.whole(page));
    result.push({
      ...page,
      media_type: header?.mediaType ?? page.media_type,
      width: header?.width ?? null,
      height: header?.height ?? null,
    });
  }
  return result;
}
