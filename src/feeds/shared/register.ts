import type { App } from '../../http/types.js';
import { registerOpds1Routes } from '../opds1/routes.js';
import { registerOpds2Routes } from '../opds2/routes.js';
import { FeedValidators } from './conditional.js';
import { FeedCatalog, type FeedServices } from './feed-catalog.js';

/**
 * The OPDS feeds at the server root (`/opds/v1`, `/opds/v1.2`, `/opds/v2`), outside `/api/v1`. They go through
 * the same global hooks as the API: caller resolution (Basic, Bearer, X-API-Key), rate limiting, permissions.
 * Registered in their own plugin scope so the OPDS Progression body type is parsed here only.
 */
export async function registerFeeds(app: App, services: FeedServices, options: { thumbnailWidth: () => number }): Promise<void> {
  const catalog = new FeedCatalog(services);
  const validators = new FeedValidators();
  await app.register(async (feeds) => {
    feeds.addContentTypeParser('application/opds-progression+json', { parseAs: 'string' }, feeds.getDefaultJsonParser('error', 'ignore'));
    registerOpds1Routes(feeds, { catalog, validators });
    registerOpds2Routes(feeds, { catalog, validators, thumbnailWidth: options.thumbnailWidth });
  });
}
