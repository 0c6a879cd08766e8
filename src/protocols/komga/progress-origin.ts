import type { ProgressOrigin } from '../../reading/index.js';

/**
 * Progress written through the Komga API (Mihon's tracker, Komga clients) is tagged `komga` in the ledger; the
 * device is the request's (the API key, else `X-Device-Id`, else the User-Agent), as for every protocol.
 */
export const KOMGA_PROGRESS: ProgressOrigin = { protocol: 'komga' };

/** A Komga read-progress body as the ledger keeps it: what the client sent. */
export function komgaProgressOrigin(body: { page?: number; completed?: boolean } | null | undefined): ProgressOrigin {
  return {
    ...KOMGA_PROGRESS,
    position: {
      ...(body?.page !== undefined ? { page: body.page } : {}),
      ...(body?.completed !== undefined ? { completed: body.completed } : {}),
    },
  };
}
