import { randomUUID } from 'node:crypto';
import type { RouteEntry } from '../../src/http/route-table.js';

/** Real ids of one catalog, to fill the parameters of every route with. */
export interface RouteIds {
  library: string;
  series: string;
  book: string;
  /** A resource path inside the book's EPUB (`/books/:id/resource/*`). */
  resource?: string;
  user?: string;
  /** The Komga layer's prefix (`komga_api.prefix`). */
  komgaPrefix?: string;
  /** A KOReader document id (the book's partial MD5) and the key in KOReader's sync URL. */
  koreaderDocument?: string;
  koreaderKey?: string;
  /** The API key in a Kobo's `api_endpoint` (`/kobo/{key}/`). */
  koboKey?: string;
  /** An item of the inbox's review queue (`/inbox/items/:id`). */
  inboxItem?: string;
}

/**
 * What a parameter stands for, by the path segment before it and its name. A parameter no rule knows fails
 * the walk naming its route: a new kind of route gets a value here once, and every walk then covers it.
 */
function valueFor(previous: string, name: string, ids: RouteIds): string | undefined {
  if (name === '*') return previous === 'resource' ? (ids.resource ?? 'OEBPS/missing.xhtml') : 'index.html';
  if (/^(page_?number|n|page)$/i.test(name)) return '1';
  if (name === 'komgaPrefix') return ids.komgaPrefix ?? 'komga';
  if (name === 'document') return ids.koreaderDocument ?? '0'.repeat(32);
  if (previous === 'koreader' && name === 'key') return ids.koreaderKey ?? 'no-such-key';
  if (previous === 'kobo' && name === 'token') return ids.koboKey ?? 'no-such-key';
  // A Kobo's cover and download URLs: a size, a quality, greyscale, the format it downloads.
  const kobo: Record<string, string> = { width: '120', height: '180', quality: '85', grey: 'false', format: 'epub' };
  if (kobo[name]) return kobo[name];
  switch (previous) {
    case 'books':
    case 'book':
      return ids.book;
    case 'series':
      return ids.series;
    case 'libraries':
    case 'library':
      return ids.library;
    case 'users':
      return ids.user ?? randomUUID();
    case 'items':
      return ids.inboxItem ?? randomUUID();
    // An inbox folder or an upload that is not there.
    case 'folders':
      return randomUUID();
    case 'uploads':
      return 'no-such-upload';
    // Things a fresh catalog has none of (or the caller cannot see): an id that exists nowhere.
    case 'api-keys':
    case 'tasks':
    case 'duplicates':
    case 'devices':
    case 'collections':
    case 'readlists':
    case 'read-lists':
      return randomUUID();
    case 'settings':
      return 'scanner.concurrency';
    // A backup file that is not there.
    case 'backups':
      return 'colophon-no-such-backup.tar.gz';
    case 'preferences':
      return 'reader';
    // A sign-in provider (OpenID Connect) that is not configured.
    case 'oidc':
      return 'no-such-provider';
  }
  if (/book_?id$/i.test(name)) return ids.book;
  if (/series_?id$/i.test(name)) return ids.series;
  if (/library_?id$/i.test(name)) return ids.library;
  return undefined;
}

export interface RouteCall {
  /** The route as registered. */
  route: string;
  /** The URL to call, parameters filled. */
  url: string;
}

/**
 * Every GET route of the app with its parameters filled from `ids`; throws naming the routes with a parameter
 * it cannot fill. Query strings are left out: each route answers its defaults.
 */
export function getRoutes(table: readonly RouteEntry[], ids: RouteIds): RouteCall[] {
  const calls: RouteCall[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const { method, url } of table) {
    if (method !== 'GET' || seen.has(url)) continue;
    seen.add(url);
    const segments = url.split('/');
    const filled = segments.map((segment, i) => {
      const param = segment === '*' ? '*' : segment.startsWith(':') ? segment.slice(1) : null;
      if (param === null) return segment;
      const value = valueFor(segments[i - 1] ?? '', param, ids);
      if (value === undefined) unknown.push(`${url} (:${param})`);
      return value ?? '';
    });
    calls.push({ route: url, url: filled.join('/') });
  }
  if (unknown.length > 0) throw new Error(`route parameters with no value in test/helpers/route-table.ts: ${unknown.join(', ')}`);
  return calls;
}
