import { z } from 'zod';
import { conflict } from '../../../http/errors.js';
import type { Caller, DeviceHint } from '../../../identity/index.js';
import type { ProgressView } from '../../../reading/index.js';
import type { FeedCatalog } from '../shared/feed-catalog.js';
import { paths } from './documents.js';

/**
 * OPDS Progression (the `http://opds-spec.org/progression` link, `application/opds-progression+json`), as Thorium
 * speaks it. It reads and writes the same progress record as the native API: one record per user and book,
 * whichever protocol wrote it.
 */
export const ProgressionBody = z.object({
  modified: z.iso.datetime({ offset: true }).describe('When the client made this progression (RFC 3339).'),
  device: z
    .object({ id: z.string().min(1).max(100), name: z.string().max(200).optional() })
    .partial()
    .optional(),
  progression: z.number().min(0).max(1).optional().describe('Share of the publication read, 0..1.'),
  locator: z
    .object({
      locations: z
        .object({ position: z.number().int().min(0).optional(), totalProgression: z.number().min(0).max(1).optional() })
        .partial()
        .optional(),
    })
    .partial()
    .optional(),
});
export type ProgressionBody = z.infer<typeof ProgressionBody>;

export interface ProgressionDocument {
  modified: string;
  device: { id: string; name: string };
  progression: number;
  locator: { href: string; type: string; locations: { position: number; progression: number; totalProgression: number } };
}

/** The ledger's protocol of OPDS 2.0 writes (progression, and page streaming through the OPDS 2 feed). */
export const OPDS2_PROTOCOL = 'opds2';

/** Our device ids (`hdr:<id>`, `key:<id>`, `ua:<hash>`) as the client knows them. */
function deviceOf(deviceId: string | null): { id: string; name: string } {
  if (!deviceId) return { id: 'unknown', name: 'Unknown device' };
  if (deviceId.startsWith('hdr:')) return { id: deviceId.slice(4), name: deviceId.slice(4) };
  if (deviceId.startsWith('key:')) return { id: deviceId, name: 'API key' };
  return { id: deviceId, name: 'Unknown device' };
}

export function progressionDocument(bookId: string, view: ProgressView): ProgressionDocument {
  return {
    modified: view.updated_at,
    device: deviceOf(view.device_id),
    progression: view.progress,
    locator: {
      href: paths.page(bookId, Math.max(1, view.current_page)),
      type: 'image/jpeg',
      locations: { position: view.current_page, progression: view.progress, totalProgression: view.progress },
    },
  };
}

export async function readProgression(catalog: FeedCatalog, caller: Caller, bookId: string): Promise<ProgressionDocument | null> {
  const view = await catalog.progression(caller, bookId);
  return view ? progressionDocument(bookId, view) : null;
}

/**
 * Newer `modified` wins: when the current position is newer than the client's `modified`, the progression is kept
 * in the history only and the update is refused with 409 Conflict (the client then GETs the newer one). Otherwise
 * the page is `progression × page count` (or `locator.locations.position` when given), and a progression of 1 (or
 * the last page) completes the book.
 */
export async function writeProgression(
  catalog: FeedCatalog,
  caller: Caller,
  bookId: string,
  body: ProgressionBody,
  hint: DeviceHint,
): Promise<ProgressionDocument> {
  const book = await catalog.bookView(caller, bookId);
  const pageCount = book.page_count;
  const fraction = body.progression ?? body.locator?.locations?.totalProgression ?? 0;
  const position = body.locator?.locations?.position;
  const page = position !== undefined && position >= 1 ? Math.min(position, pageCount) : Math.round(fraction * pageCount);
  const completed = fraction >= 1 || (pageCount > 0 && page >= pageCount);
  const input = completed ? { is_completed: true } : { current_page: pageCount > 0 ? Math.max(1, page) : 0, is_completed: false };
  const { progress, applied } = await catalog.writeProgress(
    caller,
    bookId,
    input,
    { ...hint, deviceId: body.device?.id ?? hint.deviceId },
    {
      protocol: OPDS2_PROTOCOL,
      clientAt: body.modified,
      client: { id: body.device?.id, name: body.device?.name },
      position: {
        ...(body.progression !== undefined ? { progression: body.progression } : {}),
        ...(body.locator ? { locator: body.locator } : {}),
        modified: body.modified,
      },
    },
  );
  if (!applied)
    throw conflict('The server has a newer progression for this book', { modified: progress.updated_at, progression: progress.progress });
  return progressionDocument(bookId, progress);
}
