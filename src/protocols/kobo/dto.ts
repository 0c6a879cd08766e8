import { fixedLayoutPageHref } from '../../media/rendering/fixed-layout-epub.js';
import { parsePages } from '../../reading/index.js';
import type { KoboBookRow, KoboShelf } from './devices/service.js';

/**
 * The Kobo store API's JSON shapes, as the two working servers answer them (Calibre-Web `cps/kobo.py`, Komga
 * `interfaces/api/kobo/dto`): PascalCase fields, times as `YYYY-MM-DDTHH:MM:SSZ`.
 */

/** Kobo's "no category" id, which both servers send for every book. */
const NO_CATEGORY = '00000000-0000-0000-0000-000000000001';

export const koboTime = (iso: string): string => new Date(Date.parse(iso) || 0).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** An EPUB of text (not one whose every page is an image): what a KEPUB is made of. */
export function isTextEpub(book: Pick<KoboBookRow, 'format' | 'pages'>): boolean {
  return book.format === 'epub' && parsePages(book.pages).some((p) => !p.media_type.startsWith('image/'));
}

/**
 * How a book goes to the device: an EPUB of text as KEPUB when the device takes it (the format name Komga and
 * Calibre-Web send, which makes the firmware read it with its own renderer), else as it is; comics and PDF as
 * fixed-layout EPUB made on download.
 */
export function koboFormat(
  book: Pick<KoboBookRow, 'format' | 'pages'>,
  kepub: boolean,
): { format: 'EPUB3' | 'EPUB3FL' | 'KEPUB'; path: 'epub' | 'epub3fl' | 'kepub' } {
  if (book.format !== 'epub') return { format: 'EPUB3FL', path: 'epub3fl' };
  return kepub && isTextEpub(book) ? { format: 'KEPUB', path: 'kepub' } : { format: 'EPUB3', path: 'epub' };
}

/** Where page `page` (1-based) of the book is in the EPUB the device has. */
export function pageHref(book: Pick<KoboBookRow, 'format' | 'pages'>, page: number): string | null {
  if (page < 1) return null;
  if (book.format !== 'epub') return fixedLayoutPageHref(page);
  return parsePages(book.pages)[page - 1]?.file_name ?? null;
}

/** The page a Kobo location names (its `Source`, a document of the EPUB), when it names one. */
export function pageOfHref(book: Pick<KoboBookRow, 'format' | 'pages' | 'page_count'>, source: string): number | null {
  const wanted = decodeURIComponent(source).replace(/^\/+/, '').split('#')[0]!;
  if (!wanted) return null;
  const names =
    book.format === 'epub'
      ? parsePages(book.pages).map((p) => p.file_name)
      : Array.from({ length: book.page_count }, (_, i) => fixedLayoutPageHref(i + 1));
  // The device names documents relative to the package or to the container: match on the whole path's end.
  const index = names.findIndex((name) => name === wanted || name.endsWith(`/${wanted}`) || wanted.endsWith(`/${name}`));
  return index === -1 ? null : index + 1;
}

export function bookEntitlement(book: { id: string; created_at: string; updated_at: string }, removed: boolean) {
  return {
    Accessibility: 'Full',
    ActivePeriod: { From: koboTime(book.created_at) },
    Created: koboTime(book.created_at),
    CrossRevisionId: book.id,
    Id: book.id,
    IsHiddenFromArchive: false,
    IsLocked: false,
    IsRemoved: removed,
    LastModified: koboTime(book.updated_at),
    OriginCategory: 'Imported',
    RevisionId: book.id,
    Status: 'Active',
  };
}

export function authorNames(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    if (!Array.isArray(value)) return [];
    return value
      .map((a) => (a && typeof a === 'object' && 'name' in a ? String((a as { name: unknown }).name) : ''))
      .filter((n) => n !== '');
  } catch {
    return [];
  }
}

export function bookMetadata(book: KoboBookRow, downloadBase: string, delivery: { kepub: boolean }) {
  const { format, path } = koboFormat(book, delivery.kepub);
  const authors = [...new Set(authorNames(book.authors))];
  const number = book.number_sort ?? (book.number !== null && Number.isFinite(Number(book.number)) ? Number(book.number) : null);
  return {
    Categories: [NO_CATEGORY],
    CoverImageId: book.id,
    CrossRevisionId: book.id,
    CurrentDisplayPrice: { CurrencyCode: 'USD', TotalAmount: 0 },
    CurrentLoveDisplayPrice: { TotalAmount: 0 },
    Description: book.summary ?? '',
    DownloadUrls: [{ Format: format, Size: book.size, Url: `${downloadBase}/v1/books/${book.id}/file/${path}`, Platform: 'Generic' }],
    EntitlementId: book.id,
    ExternalIds: [],
    Genre: NO_CATEGORY,
    IsEligibleForKoboLove: false,
    IsInternetArchive: false,
    IsPreOrder: false,
    IsSocialEnabled: true,
    Language: book.language ?? 'en',
    PhoneticPronunciations: {},
    PublicationDate: koboTime(book.year ? `${book.year}-01-01T00:00:00Z` : book.created_at),
    Publisher: { Imprint: '', Name: book.publisher ?? '' },
    RevisionId: book.id,
    Title: book.title,
    WorkId: book.id,
    ContributorRoles: authors.map((Name) => ({ Name })),
    Contributors: authors,
    ...(book.isbn ? { Isbn: book.isbn } : {}),
    Series: {
      Name: book.series_name,
      Number: book.number ?? '',
      NumberFloat: number ?? 0,
      Id: book.series_id,
    },
  };
}

/** What a removed book's entitlement carries of its metadata: the book may be gone from the catalog. */
export function removedMetadata(bookId: string) {
  return { EntitlementId: bookId, RevisionId: bookId, CrossRevisionId: bookId, WorkId: bookId, CoverImageId: bookId, Title: '' };
}

/** The caller's position as the progress service gives it (ProgressService.position). */
export interface Position {
  progress: { current_page: number; page_count: number; progress: number; is_completed: boolean; started_at: string; updated_at: string };
  event: { protocol: string; position: string; page: number; percentage: number | null } | undefined;
}

/** What Colophon keeps of a Kobo's position (the ledger's `position` of protocol `kobo`). */
export interface KoboPosition {
  location?: { Value?: string; Type?: string; Source?: string } | null;
  progress_percent?: number | null;
  content_source_progress_percent?: number | null;
  status?: string;
  /** The same place for the web reader (a KEPUB's span mapped back): what `GET …/progress/locator` answers. */
  locator?: { href: string; cfi?: string; progression?: number };
}

function koboPositionOf(event: Position['event']): KoboPosition | null {
  if (!event || event.protocol !== 'kobo') return null;
  try {
    return JSON.parse(event.position) as KoboPosition;
  } catch {
    return null;
  }
}

/** The device's own location, when the position is the one it sent (its page still the position's page). */
export function ownLocation(position: Position | null): KoboPosition | null {
  if (!position?.event) return null;
  return Number(position.event.page) === position.progress.current_page ? koboPositionOf(position.event) : null;
}

/** A Kobo location: a span (`kobo.P.S`) in a document of the book. */
export interface KoboLocation {
  Value: string;
  Type: string;
  Source: string;
}

/**
 * The reading state of a book: the device's own location when the position is the one it sent, else `elsewhere`
 * (the span a KEPUB has at a position from the web reader, KOReader, a Komga app…), else the start of the page's
 * document.
 */
export function readingState(book: KoboBookRow, position: Position | null, elsewhere: KoboLocation | null = null) {
  const created = koboTime(book.created_at);
  if (!position) {
    return {
      EntitlementId: book.id,
      Created: created,
      LastModified: created,
      PriorityTimestamp: created,
      StatusInfo: { LastModified: created, Status: 'ReadyToRead', TimesStartedReading: 0 },
      Statistics: { LastModified: created },
      CurrentBookmark: { LastModified: created },
    };
  }
  const { progress } = position;
  const modified = koboTime(progress.updated_at);
  const status = progress.is_completed ? 'Finished' : 'Reading';
  const own = ownLocation(position);
  const source = pageHref(book, progress.current_page);
  // An EPUB's page is a whole chapter: the share of the book the position's writer gave is finer.
  const event = position.event;
  const share =
    isTextEpub(book) && !progress.is_completed && event?.percentage != null && Number(event.page) === progress.current_page
      ? event.percentage
      : progress.progress;
  const location = own?.location ?? elsewhere ?? (source ? { Value: 'kobo.1.1', Type: 'KoboSpan', Source: source } : null);
  return {
    EntitlementId: book.id,
    Created: created,
    LastModified: modified,
    PriorityTimestamp: modified,
    StatusInfo: {
      LastModified: modified,
      Status: status,
      TimesStartedReading: 1,
      LastTimeStartedReading: koboTime(progress.started_at),
    },
    Statistics: { LastModified: modified },
    CurrentBookmark: {
      LastModified: modified,
      ProgressPercent: Math.round(share * 1000) / 10,
      ContentSourceProgressPercent: own?.content_source_progress_percent ?? 0,
      ...(location ? { Location: location } : {}),
    },
  };
}

/** A collection or read list as a Kobo shelf (a "UserTag"), with the device's books on it. */
export function shelfTag(shelf: KoboShelf) {
  return {
    Tag: {
      Created: koboTime(shelf.created_at),
      Id: shelf.id,
      Items: shelf.bookIds.map((id) => ({ RevisionId: id, Type: 'ProductRevisionTagItem' })),
      LastModified: koboTime(shelf.updated_at),
      Name: shelf.name,
      Type: 'UserTag',
    },
  };
}
