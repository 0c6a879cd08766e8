import type { FastifyBaseLogger } from 'fastify';
import type { Caller, DeviceHint } from '../../../identity/index.js';
import type { ProgressOrigin } from '../../../reading/index.js';
import type { FeedCatalog } from './feed-catalog.js';

/**
 * Page streaming moves reading progress the way PSE readers (KOReader, Chunky, Panels) expect: they never call a
 * progress API, so opening page n of a book is the progress signal. The rules:
 * - progress only moves forward: a page at or before the caller's current page changes nothing, so paging
 *   back, re-opening a page, or a prefetch of pages already passed never loses the furthest page reached;
 * - reaching the last page completes the book (the native rule), and a completed book is left as it is;
 * - only callers allowed to write progress (`progress-write`) move it; HEAD requests never do;
 * - a failure to record progress is logged and never fails the page itself.
 * Readers that prefetch ahead move progress to the furthest page they fetched.
 * Only the page-streaming routes call this (OPDS 1.2 PSE, and OPDS 2's PSE-style template with `pse=1`): covers,
 * thumbnails, downloads and the DiViNa reading-order page links (a Readium reader reports through Progression)
 * never move progress. The ledger records each move under `protocol` (`opds-pse` or `opds2`), the device from the
 * request (API key, `X-Device-Id`, else the User-Agent).
 */
export async function recordPageRead(
  catalog: FeedCatalog,
  caller: Caller,
  bookId: string,
  pageNumber: number,
  hint: DeviceHint,
  log: FastifyBaseLogger,
  protocol: string,
): Promise<void> {
  if (!caller.permissions.has('progress-write')) return;
  try {
    const book = await catalog.bookView(caller, bookId);
    const progress = book.progress;
    if (progress?.is_completed) return;
    if (progress && progress.current_page >= pageNumber) return;
    const origin: ProgressOrigin = { protocol, position: { page: pageNumber, page_stream: true } };
    await catalog.updateProgress(caller, bookId, { current_page: pageNumber }, hint, origin);
  } catch (err) {
    log.warn({ err, bookId, pageNumber }, 'page stream: progress could not be recorded');
  }
}

/** `maxWidth` as a client sends it: a positive number, or anything else (an unsubstituted `{maxWidth}`) ignored. */
export function parseMaxWidth(value: string | undefined): number | undefined {
  if (!value || !/^\d{1,5}$/.test(value)) return undefined;
  const width = Number(value);
  return width >= 1 && width <= 10_000 ? width : undefined;
}
