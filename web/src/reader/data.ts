import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, authHeaders, ok, type components } from '../api/client';
import { preferencesQuery, seriesBooksQuery } from '../api/queries';
import { fetchWaitingOutRateLimit } from '../api/retry';
import type { LoadedPage } from './preload';
import { bookQuery, pagesQuery, seriesQuery } from './queries';
import { readPending, sendPending, type ProgressBody, type ProgressTransport } from './progress';
import type { StoredReaderSettings } from './settings';

export type Book = components['schemas']['Book'];
export type PageInfo = components['schemas']['Page'];

/** Pages that are images: every page of a comic, a PDF, or a fixed-layout image EPUB. */
export const isImageBook = (pages: readonly PageInfo[]): boolean =>
  pages.length > 0 && pages.every((p) => p.media_type.startsWith('image/'));

let webpSupport: boolean | null = null;
function acceptsWebp(): boolean {
  if (webpSupport === null) {
    try {
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 1;
      webpSupport = canvas.toDataURL('image/webp').startsWith('data:image/webp');
    } catch {
      webpSupport = false;
    }
  }
  return webpSupport;
}

/**
 * The page image URL: sized for its box in device pixels, WebP when the browser takes it (unless the account
 * asks for JPEG or the stored format), grey for e-ink when asked; without options, the stored bytes.
 */
export function pageUrl(
  bookId: string,
  page: number,
  options: { width: number | null; imageFormat: unknown; formatChosen: boolean; grayscale: boolean } | null,
): string {
  if (!options) return `/api/v1/books/${bookId}/pages/${page}`;
  const query = new URLSearchParams();
  if (options.width !== null) query.set('width', String(options.width));
  const format =
    options.imageFormat === 'jpeg' ? 'jpeg' : options.imageFormat === 'webp' || (!options.formatChosen && acceptsWebp()) ? 'webp' : null;
  if (format) query.set('format', format);
  if (options.grayscale) query.set('grayscale', 'true');
  const q = query.toString();
  return `/api/v1/books/${bookId}/pages/${page}${q ? `?${q}` : ''}`;
}

/** Page images browsers show as they are stored. */
const SHOWN_AS_STORED = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

/**
 * Whether a page the reader is waiting for (the one the book opens on) is asked as its stored bytes rather than
 * resized: the server sends those at once, with no resize to wait for, which is most of the time to the first
 * paint. Only when they are at most twice the width needed (twice the device pixels: the bytes stay in
 * proportion), in a format the browser shows, and nothing else is asked of them (grey pages, a format the
 * account chose). PDF pages are drawn by the server whatever is asked. Every other page is asked at its size.
 */
export function opensAsStored(
  page: Pick<PageInfo, 'media_type' | 'width'>,
  bookFormat: string | null | undefined,
  deviceWidth: number | null,
  options: { formatChosen: boolean; grayscale: boolean },
): boolean {
  if (bookFormat === 'pdf' || options.grayscale || options.formatChosen) return false;
  if (!SHOWN_AS_STORED.has(page.media_type) || !page.width) return false;
  return deviceWidth === null || page.width <= deviceWidth * 2;
}

/** Fetches a page (the token cannot ride on an <img src>), then decodes it off the main thread's critical path. */
export async function loadPageImage(url: string, index: number, signal: AbortSignal): Promise<LoadedPage> {
  // Preloading asks for several pages at once: one refused by the rate limit is asked again after the wait.
  const response = await fetchWaitingOutRateLimit(url, { headers: authHeaders(), signal });
  if (!response.ok) throw new Error(`page ${index + 1}: HTTP ${response.status}`);
  const blobUrl = URL.createObjectURL(await response.blob());
  const image = new Image();
  image.decoding = 'async';
  image.src = blobUrl;
  try {
    await image.decode();
  } catch (err) {
    URL.revokeObjectURL(blobUrl);
    throw err;
  }
  return { index, image, url: blobUrl };
}

export const releasePage = (page: LoadedPage): void => URL.revokeObjectURL(page.url);

/** Progress over HTTP; a refusal that will not change by retrying (400, 404) is not kept for later. */
export const progressTransport: ProgressTransport = {
  async send(bookId: string, body: ProgressBody, keepalive: boolean, recordedAt?: number, entryId?: string): Promise<boolean> {
    const url = body.kind === 'page' ? `/api/v1/books/${bookId}/progress` : `/api/v1/books/${bookId}/progress/locator`;
    const position = body.kind === 'page' ? { current_page: body.current_page } : { locator: body.locator, percentage: body.percentage };
    const payload = {
      ...position,
      ...(recordedAt === undefined ? {} : { recorded_at: new Date(recordedAt).toISOString() }),
      ...(entryId === undefined ? {} : { entry_id: entryId }),
    };
    const response = await fetch(url, {
      method: 'PUT',
      keepalive,
      headers: { ...authHeaders(), 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    return response.ok || response.status === 400 || response.status === 404;
  },
};

export function useBook(bookId: string) {
  return useQuery(bookQuery(bookId));
}

export function usePages(bookId: string) {
  return useQuery(pagesQuery(bookId));
}

export function useSeriesBooks(seriesId: string | undefined) {
  return useQuery(seriesBooksQuery(seriesId));
}

export function useSeries(seriesId: string | undefined) {
  return useQuery(seriesQuery(seriesId));
}

/** The account preferences by key, and the stored reader settings with a way to change them. */
export function useReaderPreferences() {
  const queryClient = useQueryClient();
  const preferences = useQuery(preferencesQuery);
  const byKey = Object.fromEntries((preferences.data ?? []).map((p) => [p.key, p]));
  // The last change made here wins at once: the query cache tells its observers a task later, and a controlled
  // checkbox would flip back in between.
  const [local, setLocal] = useState<StoredReaderSettings | null>(null);
  const stored = local ?? ((byKey.reader_settings?.value ?? {}) as StoredReaderSettings);
  const save = useMutation({
    mutationFn: (value: StoredReaderSettings) =>
      ok(api.PUT('/api/v1/user/preferences/{key}', { params: { path: { key: 'reader_settings' } }, body: { value } })),
  });
  // Shown at once (a controlled checkbox must not flip back while the save is on its way), then saved.
  const apply = (value: StoredReaderSettings) => {
    setLocal(value);
    queryClient.setQueryData(preferencesQuery.queryKey, (old) =>
      old?.map((p) => (p.key === 'reader_settings' ? { ...p, value, is_default: false } : p)),
    );
    save.mutate(value);
  };
  return {
    // Data, not status: a refetch that fails keeps the settings already loaded (and the reader as it is).
    loaded: preferences.data !== undefined,
    error: preferences.error,
    /** The last save failed: the reader says so (the change shows here, but is not the account's). */
    saveError: save.error,
    // "Two pages side by side" left at its default (off) keeps the reader's automatic spreads on wide screens;
    // unticked by the user, it means single pages.
    values: Object.fromEntries(
      Object.entries(byKey).map(([k, p]) => [k, k === 'double_page' && p.is_default ? undefined : p.value]),
    ) as Record<string, unknown>,
    formatChosen: byKey.image_format ? !byKey.image_format.is_default : false,
    stored,
    save: apply,
  };
}

/**
 * The book after this one (the On Deck rule: the next book of the series in number order that is not read,
 * else simply the next) and the one before.
 */
export function neighbours(books: readonly Book[], bookId: string): { previous: Book | undefined; next: Book | undefined } {
  const index = books.findIndex((b) => b.id === bookId);
  if (index < 0) return { previous: undefined, next: undefined };
  const after = books.slice(index + 1);
  const next = after.find((b) => !b.progress?.is_completed) ?? after[0];
  return { previous: books[index - 1], next };
}

/**
 * The saved position, or null when the caller has not started the book. Read from the book itself, asked afresh:
 * a book not started is no error there (its position endpoint answers 404, which a browser logs on every first
 * open), and the fresh book replaces the cached one, so the reader draws what this answer says. A failed answer
 * throws: opening at page 1 instead would move the saved position back once the reader saves.
 */
export async function savedPage(queryClient: QueryClient, bookId: string): Promise<{ current_page: number; is_completed: boolean } | null> {
  // A position of this book kept while the server could not be reached goes first: it is the newer one when the
  // reader was there after the server's position was saved (the server tells by its time), and the reader must
  // open where the server then says. A failure leaves it queued, and the book is asked for all the same.
  await sendPending(progressTransport, localStorage, bookId).catch(() => 0);
  const book = await queryClient.fetchQuery({ ...bookQuery(bookId), staleTime: 0 });
  // Still queued (offline: the book came from its downloaded copy): the place this device reached since wins.
  const queued = readPending(localStorage)
    .filter((p) => p.bookId === bookId && p.body.kind === 'page')
    .reduce<ReturnType<typeof readPending>[number] | undefined>((latest, p) => (!latest || p.at > latest.at ? p : latest), undefined);
  if (queued?.body.kind === 'page' && (!book.progress || queued.at > Date.parse(book.progress.updated_at)))
    return { current_page: queued.body.current_page, is_completed: false };
  return book.progress ? { current_page: book.progress.current_page, is_completed: book.progress.is_completed } : null;
}
