import { authHeaders } from '../api/client';
import { getSession } from '../api/session';
import { OFFLINE_INDEX_KEY, offlineCacheName, userOfAuthorization } from './keys';

/**
 * Books kept in this browser for reading offline (issue 54): each person's in a Cache Storage cache of their own,
 * under the keys the service worker answers from (web/sw/sw.ts). A download fetches the book's record, its pages'
 * list and every page image at this screen's size as WebP (an EPUB: each of its files), skipping what is kept
 * already, so a download cut short (a lost connection, Pause) resumes where it stopped.
 */

export interface OfflineBook {
  bookId: string;
  seriesId: string;
  title: string;
  number: string | null;
  seriesTitle: string;
  kind: 'pages' | 'epub';
  /** Files kept and to keep (page images, or the EPUB's files). */
  done: number;
  total: number;
  bytes: number;
  complete: boolean;
  savedAt: string;
}

export class DownloadError extends Error {
  constructor(
    readonly reason: 'quota' | 'network' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

interface Resource {
  path: string;
}

interface BookRecord {
  id: string;
  series_id: string;
  title: string;
  number: string | null;
}

/** The signed-in person's id, from the session's token; null when nobody is signed in. */
export function currentUser(): string | null {
  const session = getSession();
  return session ? userOfAuthorization(`Bearer ${session.token}`) : null;
}

async function openCache(userId: string): Promise<Cache> {
  return caches.open(offlineCacheName(userId));
}

async function readIndex(cache: Cache): Promise<Record<string, OfflineBook>> {
  const response = await cache.match(OFFLINE_INDEX_KEY);
  return response ? ((await response.json()) as Record<string, OfflineBook>) : {};
}

async function writeIndex(cache: Cache, index: Record<string, OfflineBook>): Promise<void> {
  await put(cache, OFFLINE_INDEX_KEY, new Response(JSON.stringify(index), { headers: { 'Content-Type': 'application/json' } }));
}

const isQuotaError = (err: unknown) => err instanceof DOMException && (err.name === 'QuotaExceededError' || err.code === 22);

/** `cache.put`, with a full quota said as such. */
async function put(cache: Cache, key: string, response: Response): Promise<void> {
  try {
    await cache.put(key, response);
  } catch (err) {
    if (isQuotaError(err)) throw new DownloadError('quota', 'quota');
    throw err;
  }
}

/** The downloads of the signed-in person, newest first. */
export async function listDownloads(): Promise<OfflineBook[]> {
  const user = currentUser();
  if (!user || !(await caches.has(offlineCacheName(user)))) return [];
  const index = await readIndex(await openCache(user));
  return Object.values(index).sort((a, b) => b.savedAt.localeCompare(a.savedAt));
}

export async function downloadOf(bookId: string): Promise<OfflineBook | null> {
  return (await listDownloads()).find((d) => d.bookId === bookId) ?? null;
}

/** The page image width asked: this screen's width in device pixels (what the reader shows a page at, at most). */
function pageWidth(): number {
  const dpr = Math.min(window.devicePixelRatio || 1, 3);
  return Math.ceil(Math.max(window.screen?.width ?? 0, window.innerWidth) * dpr);
}

async function fetchOk(url: string, signal: AbortSignal): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: authHeaders(), signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new DownloadError('network', 'network');
  }
  if (!response.ok) throw new DownloadError('refused', String(response.status));
  return response;
}

export type Progress = (book: OfflineBook) => void;

/**
 * Downloads one book (or finishes one started before); `onProgress` after each file. Aborting `signal` pauses: what
 * was kept stays and the next call goes on from there.
 */
export async function downloadBook(bookId: string, signal: AbortSignal, onProgress: Progress = () => undefined): Promise<OfflineBook> {
  const user = currentUser();
  if (!user) throw new DownloadError('refused', '401');
  const cache = await openCache(user);
  void navigator.storage?.persist?.().catch(() => false);
  const keep = async (url: string, key = url) => {
    if (await cache.match(key)) return 0;
    const response = await fetchOk(url, signal);
    const body = await response.blob();
    await put(
      cache,
      key,
      new Response(body, { headers: { 'Content-Type': response.headers.get('Content-Type') ?? 'application/octet-stream' } }),
    );
    return body.size;
  };
  const base = `/api/v1/books/${bookId}`;
  // The record is asked afresh each time (its position and access may have changed since).
  const recordResponse = await fetchOk(base, signal);
  const record = (await recordResponse.clone().json()) as BookRecord;
  await put(cache, base, recordResponse);
  let bytes = (await keep(`${base}/pages`)) + (await keep(`/api/v1/series/${record.series_id}`));
  await keep('/api/v1/user/preferences').catch(() => 0);
  await keep(`${base}/thumbnail`).catch(() => 0);
  const series = (await (await cache.match(`/api/v1/series/${record.series_id}`))?.json()) as { metadata?: { title?: string } } | undefined;
  const pages = (await (await cache.match(`${base}/pages`))!.json()) as { number: number; media_type: string }[];
  const images = pages.length > 0 && pages.every((p) => p.media_type.startsWith('image/'));
  const files = images
    ? pages.map((p) => ({ url: `${base}/pages/${p.number}?width=${pageWidth()}&format=webp`, key: `${base}/pages/${p.number}` }))
    : [
        { url: `${base}/resources`, key: `${base}/resources` },
        ...((await (await fetchOk(`${base}/resources`, signal)).json()) as Resource[]).map((r) => {
          const url = `${base}/resource/${r.path.split('/').map(encodeURIComponent).join('/')}`;
          return { url, key: url };
        }),
      ];
  const index = await readIndex(cache);
  const entry: OfflineBook = {
    bookId,
    seriesId: record.series_id,
    title: record.title,
    number: record.number,
    seriesTitle: series?.metadata?.title ?? '',
    kind: images ? 'pages' : 'epub',
    done: 0,
    total: files.length,
    bytes: index[bookId]?.bytes ?? 0,
    complete: false,
    savedAt: index[bookId]?.savedAt ?? new Date().toISOString(),
  };
  bytes += entry.bytes;
  for (const file of files) {
    if (signal.aborted) break;
    bytes += await keep(file.url, file.key);
    entry.done += 1;
    entry.bytes = bytes;
    onProgress({ ...entry });
    // Kept as it goes: a closed tab leaves an index that says how far it got.
    if (entry.done % 10 === 0) await writeIndex(cache, { ...(await readIndex(cache)), [bookId]: entry });
  }
  entry.complete = entry.done === entry.total;
  await writeIndex(cache, { ...(await readIndex(cache)), [bookId]: entry });
  onProgress({ ...entry });
  return entry;
}

/** Removes one book's copy (everything kept under its paths) from this browser. */
export async function removeDownload(bookId: string): Promise<void> {
  const user = currentUser();
  if (!user) return;
  const cache = await openCache(user);
  const index = await readIndex(cache);
  const prefix = `/api/v1/books/${bookId}`;
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path === prefix || path.startsWith(`${prefix}/`)) await cache.delete(request);
  }
  const rest = Object.fromEntries(Object.entries(index).filter(([id]) => id !== bookId));
  await writeIndex(cache, rest);
}

/**
 * Brings this browser's copies in line with what the server lets the person see: a book the server no longer
 * shows them (removed, or its library taken from them) is deleted here; a session the server refuses (revoked,
 * the account disabled) deletes them all. Returns the ids removed. Run when the connection comes back and when the
 * app opens.
 */
export async function syncDownloads(): Promise<string[]> {
  const removed: string[] = [];
  const user = currentUser();
  for (const book of await listDownloads()) {
    let status: number;
    try {
      status = (await fetch(`/api/v1/books/${book.bookId}`, { headers: authHeaders(), cache: 'no-store' })).status;
    } catch {
      return removed; // Still offline: nothing is decided.
    }
    if (status === 401 && user) {
      const all = (await listDownloads()).map((d) => d.bookId);
      await forgetDownloads(user);
      return [...removed, ...all];
    }
    if (status === 404 || status === 403) {
      await removeDownload(book.bookId);
      removed.push(book.bookId);
    }
  }
  return removed;
}

/** Deletes every download of a person (at sign-out: nothing they downloaded stays readable). */
export async function forgetDownloads(userId: string): Promise<void> {
  await caches.delete(offlineCacheName(userId));
}

export interface StorageUse {
  used: number;
  quota: number;
  persisted: boolean;
}

export async function storageUse(): Promise<StorageUse | null> {
  if (!navigator.storage?.estimate) return null;
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  const persisted = (await navigator.storage.persisted?.().catch(() => false)) ?? false;
  return { used: usage, quota, persisted };
}
