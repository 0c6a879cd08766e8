import type { App } from '../../../http/types.js';
import { registerOpds1Routes } from '../opds1/routes.js';
import { registerOpds2Routes } from '../opds2/routes.js';
import { FeedValidators } from './conditional.js';
import { FeedCatalog, type FeedServices } from './feed-catalog.js';
import { dropUnfilledQueryParameters } from './query.js';

/**
 * The OPDS feeds at the server root (`/opds/v1`, `/opds/v1.2`, `/opds/v2`), outside `/api/v1`. They go through
 * the same global hooks as the API: caller resolution (Basic, Bearer, X-API-Key), rate limiting, permissions.
 * Registered in their own plugin scope so the OPDS Progression body type is parsed here only, and so that empty
 * or unfilled optional query parameters count as absent on every feed route (see dropUnfilledQueryParameters).
 */
export interface FeedOptions {
  thumbnailWidth: () => number;
  /** `server.public_url`: the base of the absolute search template URLs (else the request's scheme and host). */
  publicUrl: string | undefined;
}

export async function registerFeeds(app: App, services: FeedServices, options: FeedOptions): Promise<void> {
  const catalog = new FeedCatalog(services);
  const validators = new FeedValidators();
  await app.register(async (feeds) => {
    feeds.addHook('preValidation', async (req) => dropUnfilledQueryParameters(req));
    feeds.addContentTypeParser('application/opds-progression+json', { parseAs: 'string' }, feeds.getDefaultJsonParser('error', 'ignore'));
    registerOpds1Routes(feeds, { catalog, validators, publicUrl: options.publicUrl });
    registerOpds2Routes(feeds, { catalog, validators, thumbnailWidth: options.thumbnailWidth, publicUrl: options.publicUrl });
  });
}
