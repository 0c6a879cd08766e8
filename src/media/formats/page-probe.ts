import { throwIfAborted } from '../errors.js';
import { parseImageHeader } from '../images/image-header.js';
import { PROBE_HEAD_BYTES, probeImage } from '../images/image-probe.js';
import { sniffImageType } from '../images/image-types.js';
import type { PageEntry, PageInfo } from '../types.js';

export interface PageBytesSource {
  /** The first `bytes` of the page, or all of it when shorter. */
  head(page: PageEntry, bytes: number): Promise<Buffer>;
  /** The same, when it is at hand without waiting (a stored entry of an archive in memory); null otherwise. */
  headAtHand?(page: PageEntry, bytes: number): Buffer | null;
  whole(page: PageEntry): Promise<Buffer>;
}

/**
 * First read of a page when listing: a JPEG or PNG header (markers, IHDR, a typical EXIF block) almost always
 * fits, and it is a small fraction of a page, so analysis reads little beyond what hashing reads anyway.
 */
const FIRST_HEAD_BYTES = 8 * 1024;
/** Re-reads allowed when a header runs on (big EXIF thumbnails, ICC profiles) before giving up to sharp. */
const MAX_HEAD_READS = 4;

/**
 * Adds width and height to each page from its header. The header is parsed in plain JS from the first
 * bytes of the page, reading a little more when it runs on; formats or variants the parser does not vouch
 * for go to sharp as before: the first 64 KiB, then the whole page when that did not tell (GIF, AVIF...).
 * The media type is corrected from the bytes when the name lied (a JPEG called page.png).
 */
export async function probePages(pages: readonly PageEntry[], source: PageBytesSource, signal?: AbortSignal): Promise<PageInfo[]> {
  const result: PageInfo[] = [];
  for (const page of pages) {
    throwIfAborted(signal);
    const probed = probeAtHand(page, source) ?? (await probePage(page, source));
    // Spelt out rather than spread: the same keys in the same order, several times cheaper per page.
    result.push({
      number: page.number,
      file_name: page.file_name,
      media_type: probed.media_type,
      size: page.size,
      width: probed.width,
      height: probed.height,
    });
  }
  return result;
}

/**
 * The common case without a promise: the header is in the first bytes and those are at hand. Awaiting each
 * page's bytes cost ~4 µs a page in promise hops, ten times the parsing; a 20-page book is probed per scan.
 */
function probeAtHand(page: PageEntry, source: PageBytesSource): Pick<PageInfo, 'media_type' | 'width' | 'height'> | null {
  const head = source.headAtHand?.(page, Math.min(FIRST_HEAD_BYTES, Math.max(page.size, 1)));
  if (!head) return null;
  const parsed = parseImageHeader(head, Math.max(page.size, head.length));
  return parsed.kind === 'size'
    ? { media_type: sniffImageType(head) ?? page.media_type, width: parsed.width, height: parsed.height }
    : null;
}

async function probePage(page: PageEntry, source: PageBytesSource): Promise<Pick<PageInfo, 'media_type' | 'width' | 'height'>> {
  let head = await source.head(page, Math.min(FIRST_HEAD_BYTES, Math.max(page.size, 1)));
  for (let reads = 1; ; reads++) {
    const parsed = parseImageHeader(head, Math.max(page.size, head.length));
    if (parsed.kind === 'size') return { media_type: sniffImageType(head) ?? page.media_type, width: parsed.width, height: parsed.height };
    if (parsed.kind === 'unknown' || reads >= MAX_HEAD_READS || parsed.bytes <= head.length) break;
    head = await source.head(page, Math.min(page.size, Math.max(parsed.bytes, head.length * 2)));
  }
  // The sharp path, exactly as before the plain-JS parser existed.
  if (head.length < Math.min(PROBE_HEAD_BYTES, page.size)) head = await source.head(page, PROBE_HEAD_BYTES);
  let header = await probeImage(head);
  if (!header && page.size > PROBE_HEAD_BYTES) header = await probeImage(await source.whole(page));
  return { media_type: header?.mediaType ?? page.media_type, width: header?.width ?? null, height: header?.height ?? null };
}
