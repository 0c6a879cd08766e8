import type { App } from '../../http/types.js';
import { registerOpds1Routes } from '../opds1/routes.js';
import { FeedValidators } from './conditional.js';
import { FeedCatalog, type FeedServices } from './feed-catalog.js';

/**
 * The OPDS feeds at the server root (`/opds/v1`, `/opds/v1.2`, `/opds/v2`), outside `/api/v1`. They go through
 * the same global hooks as the API: caller resolution (Basic, Bearer, X-API-Key), rate limiting, permissions.
 */
export async function registerFeeds(app: App, services: FeedServices): Promise<void> {
  const catalog = new FeedCatalog(services);
  const validators = new FeedValidators();
  await app.register(async (feeds) => {
    registerOpds1Routes(feeds, { catalog, validators });
  });
}
