/**
 * What the page and the service worker agree on about offline copies (issue 54): one Cache Storage cache per
 * person (a shared browser keeps each one's downloads apart, and sign-out deletes that person's), the key a
 * response is kept under, and which requests may be answered from it when the network is not there.
 */

export const OFFLINE_CACHE_PREFIX = 'colophon-offline-';
export const offlineCacheName = (userId: string): string => `${OFFLINE_CACHE_PREFIX}${userId}`;

/** The downloads of a cache, as a response in it (the list goes where the books go, and leaves with them). */
export const OFFLINE_INDEX_KEY = '/offline/index.json';

/**
 * The user a Bearer token is for: the `sub` of its payload, read without checking the signature (the server
 * checks it; this only chooses whose downloads a request may be answered from). Null for anything else.
 */
export function userOfAuthorization(header: string | null): string | null {
  const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    return typeof json.sub === 'string' ? json.sub : null;
  } catch {
    return null;
  }
}

/**
 * Requests a downloaded book answers offline: its record, pages, page images, EPUB resources and cover, its series'
 * record, and the reader's preferences.
 */
const OFFLINE_PATH =
  /^\/api\/v1\/(books\/[0-9a-f-]{36}(\/(pages(\/\d+)?|resources|resource\/.+|thumbnail))?|series\/[0-9a-f-]{36}|user\/preferences)$/;
export const isOfflinePath = (pathname: string): boolean => OFFLINE_PATH.test(pathname);

/**
 * The key a response is kept under: its path without the query (a page image is asked at the width of the reader's
 * box, which need not be the one it was downloaded at).
 */
export const offlineKey = (url: URL): string => url.pathname;
