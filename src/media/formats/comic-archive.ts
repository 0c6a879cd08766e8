import type { ComicInfo } from '../metadata/comicinfo.js';
import type { CoverRef, EmbeddedMetadata } from '../types.js';

/** What ComicInfo.xml gives a comic archive (CBZ or CBR) as embedded metadata. */
export function comicInfoMetadata(info: ComicInfo | null): EmbeddedMetadata | null {
  return info ? { source: 'comicinfo', fields: info.fields } : null;
}

/**
 * The cover of a comic archive: the page ComicInfo marks FrontCover, else the first. A broken ComicInfo.xml
 * costs the hint, not the cover.
 */
export async function comicCoverRef(
  readComicInfo: () => Promise<ComicInfo | null>,
  pageCount: number,
  fileNameOf: (page: number) => string,
): Promise<CoverRef> {
  let index = 0;
  try {
    index = (await readComicInfo())?.frontCoverIndex ?? 0;
  } catch {
    index = 0;
  }
  const number = index < pageCount ? index + 1 : 1;
  return { pageNumber: number, fileName: fileNameOf(number) };
}
