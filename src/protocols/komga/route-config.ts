import { z } from 'zod';
import { PageNumberParam, Uuid } from '../../http/params.js';
import type { PermissionRule } from '../../identity/index.js';

/**
 * Every Komga route: behind the prefix gate, answering a missing login with a Basic challenge (OkHttp-based apps
 * only send Basic credentials after a 401 that asks for them), with the same permission as its native twin.
 */
export const komgaRoute = (permission?: PermissionRule) => ({
  komga: true,
  authChallenge: 'basic' as const,
  ...(permission ? { permission } : {}),
});

/** Komga's endpoints are described by Komga's own OpenAPI document, not ours. */
export const hidden = { hide: true } as const;

export const SeriesParams = z.object({ seriesId: Uuid });
export const BookParams = z.object({ bookId: Uuid });
export const PageParams = z.object({ bookId: Uuid, pageNumber: PageNumberParam });
export const AnyIdParams = z.object({ id: z.string().max(200) });
