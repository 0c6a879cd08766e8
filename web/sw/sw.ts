/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { isOfflinePath, offlineCacheName, offlineKey, userOfAuthorization } from '../src/offline/keys';

/**
 * Colophon's service worker (issue 54), built by vite-plugin-pwa (Workbox): the app shell is precached, so the app
 * opens with no network; a request a downloaded book needs is answered from its person's offline copy when the
 * network does not answer. A new version waits until the page asks it to take over (the "Reload to update" bar).
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Every app URL is the app shell; the API, the feeds and the device protocols are the server's.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), {
    denylist: [/^\/api\//, /^\/opds(\/|$)/, /^\/kobo\//, /^\/koreader\//, /^\/health/, /^\/metrics/, /^\/docs/, /^\/[^/]+\/api\//],
  }),
);

// Network first: online, the server answers (and checks access) as always; offline, the downloaded copy of the
// person whose token the request carries, or the network's own failure.
registerRoute(
  ({ url, request }) => request.method === 'GET' && url.origin === self.location.origin && isOfflinePath(url.pathname),
  async ({ request, url }) => {
    try {
      return await fetch(request);
    } catch (err) {
      const user = userOfAuthorization(request.headers.get('Authorization'));
      if (!user || !(await caches.has(offlineCacheName(user)))) throw err;
      const cache = await caches.open(offlineCacheName(user));
      const copy = await cache.match(offlineKey(url), { ignoreVary: true });
      if (copy) return copy;
      throw err;
    }
  },
);

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
