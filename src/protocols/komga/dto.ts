import { type Caller, scopeFor } from '../../identity/index.js';
import type { BookView, SeriesView } from '../../catalog/index.js';
import { importsLists, type LibraryResponse } from '../../libraries/index.js';
import type { CollectionView, ReadListView } from '../../lists/index.js';
import type { PageInfo } from '../../media/types.js';

/**
 * Komga's DTOs (camelCase, as in Komga's OpenAPI description) built from our views. Komga's strings are never
 * null: a missing value is an empty string; optional values Komga types as plain integers or dates (ageRating,
 * releaseDate, totalBookCount, width, height) are left out when unknown.
 */

export interface AuthorDto {
  name: string;
  role: string;
}

export interface LibraryDto {
  id: string;
  name: string;
  root: string;
  importComicInfoBook: boolean;
  importComicInfoSeries: boolean;
  importComicInfoCollection: boolean;
  importComicInfoReadList: boolean;
  importComicInfoSeriesAppendVolume: boolean;
  importEpubBook: boolean;
  importEpubSeries: boolean;
  importMylarSeries: boolean;
  importLocalArtwork: boolean;
  importBarcodeIsbn: boolean;
  scanForceModifiedTime: boolean;
  scanInterval: 'DISABLED' | 'HOURLY' | 'EVERY_6H' | 'EVERY_12H' | 'DAILY' | 'WEEKLY';
  scanOnStartup: boolean;
  scanCbx: boolean;
  scanPdf: boolean;
  scanEpub: boolean;
  scanDirectoryExclusions: string[];
  repairExtensions: boolean;
  convertToCbz: boolean;
  emptyTrashAfterScan: boolean;
  seriesCover: 'FIRST' | 'FIRST_UNREAD_OR_FIRST' | 'FIRST_UNREAD_OR_LAST' | 'LAST';
  hashFiles: boolean;
  hashPages: boolean;
  hashKoreader: boolean;
  analyzeDimensions: boolean;
  unavailable: boolean;
}

export interface SeriesMetadataDto {
  status: string;
  statusLock: boolean;
  title: string;
  titleLock: boolean;
  titleSort: string;
  titleSortLock: boolean;
  summary: string;
  summaryLock: boolean;
  readingDirection: string;
  readingDirectionLock: boolean;
  publisher: string;
  publisherLock: boolean;
  ageRating?: number;
  ageRatingLock: boolean;
  language: string;
  languageLock: boolean;
  genres: string[];
  genresLock: boolean;
  tags: string[];
  tagsLock: boolean;
  totalBookCount?: number;
  totalBookCountLock: boolean;
  sharingLabels: string[];
  sharingLabelsLock: boolean;
  links: { label: string; url: string }[];
  linksLock: boolean;
  alternateTitles: { label: string; title: string }[];
  alternateTitlesLock: boolean;
  created: string;
  lastModified: string;
}

export interface BookMetadataAggregationDto {
  authors: AuthorDto[];
  tags: string[];
  releaseDate?: string;
  summary: string;
  summaryNumber: string;
  created: string;
  lastModified: string;
}

export interface SeriesDto {
  id: string;
  libraryId: string;
  name: string;
  url: string;
  created: string;
  lastModified: string;
  fileLastModified: string;
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  metadata: SeriesMetadataDto;
  booksMetadata: BookMetadataAggregationDto;
  deleted: boolean;
  oneshot: boolean;
}

export interface MediaDto {
  status: 'READY' | 'ERROR' | 'UNSUPPORTED' | 'UNKNOWN' | 'OUTDATED';
  mediaType: string;
  pagesCount: number;
  comment: string;
  mediaProfile: 'DIVINA' | 'EPUB' | 'PDF';
  epubDivinaCompatible: boolean;
  epubIsKepub: boolean;
}

export interface BookMetadataDto {
  title: string;
  titleLock: boolean;
  summary: string;
  summaryLock: boolean;
  number: string;
  numberLock: boolean;
  numberSort: number;
  numberSortLock: boolean;
  releaseDate?: string;
  releaseDateLock: boolean;
  authors: AuthorDto[];
  authorsLock: boolean;
  tags: string[];
  tagsLock: boolean;
  isbn: string;
  isbnLock: boolean;
  links: { label: string; url: string }[];
  linksLock: boolean;
  created: string;
  lastModified: string;
}

export interface ReadProgressDto {
  page: number;
  completed: boolean;
  readDate: string;
  created: string;
  lastModified: string;
  deviceId: string;
  deviceName: string;
}

export interface BookDto {
  id: string;
  seriesId: string;
  seriesTitle: string;
  libraryId: string;
  name: string;
  url: string;
  number: number;
  created: string;
  lastModified: string;
  fileLastModified: string;
  sizeBytes: number;
  size: string;
  media: MediaDto;
  metadata: BookMetadataDto;
  readProgress?: ReadProgressDto;
  deleted: boolean;
  fileHash: string;
  oneshot: boolean;
}

export interface PageDto {
  number: number;
  fileName: string;
  mediaType: string;
  width?: number;
  height?: number;
  sizeBytes?: number;
  size: string;
}

/**
 * Komga's age restriction. ALLOW_ONLY `age`: only series rated `age` or younger (unrated ones hidden); EXCLUDE
 * `age`: series rated `age` or older hidden (unrated ones shown).
 */
export interface AgeRestrictionDto {
  age: number;
  restriction: 'ALLOW_ONLY' | 'EXCLUDE';
}

export interface UserDto {
  id: string;
  email: string;
  roles: string[];
  sharedAllLibraries: boolean;
  sharedLibrariesIds: string[];
  labelsAllow: string[];
  labelsExclude: string[];
  /** null: no age limit. */
  ageRestriction: AgeRestrictionDto | null;
}

export interface TachiyomiReadProgressV2Dto {
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  lastReadContinuousNumberSort: number;
  maxNumberSort: number;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Komga's human-readable size ("1.2 MiB"). */
export function humanSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${Math.round(value * 10) / 10} ${UNITS[unit]}`;
}

const text = (v: string | null | undefined) => v ?? '';
const dateOfYear = (year: number | null) =>
  year !== null && year > 0 && year < 10000 ? `${String(year).padStart(4, '0')}-01-01` : undefined;
const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** Series status values Komga knows (ComicInfo and OPF use free text). */
export function seriesStatus(status: string | null): string {
  const v = (status ?? '').trim().toUpperCase();
  if (v === 'ENDED' || v === 'COMPLETED' || v === 'COMPLETE' || v === 'FINISHED') return 'ENDED';
  if (v === 'ABANDONED' || v === 'CANCELLED' || v === 'CANCELED') return 'ABANDONED';
  if (v === 'HIATUS' || v === 'ON HIATUS') return 'HIATUS';
  return 'ONGOING';
}

const DIRECTIONS: Record<string, string> = { ltr: 'LEFT_TO_RIGHT', rtl: 'RIGHT_TO_LEFT', vertical: 'VERTICAL', webtoon: 'WEBTOON' };

/** Komga's library; `root` is empty for a caller not shown the folder (Komga's clients accept that). */
export function libraryDto(l: LibraryResponse): LibraryDto {
  return {
    id: l.id,
    name: l.name,
    root: l.path ?? '',
    importComicInfoBook: true,
    importComicInfoSeries: true,
    // Scans make shared collections (SeriesGroup) and read lists (StoryArc) unless the library turns it off.
    importComicInfoCollection: importsLists(l.scanning_config),
    importComicInfoReadList: importsLists(l.scanning_config),
    importComicInfoSeriesAppendVolume: false,
    importEpubBook: true,
    importEpubSeries: true,
    importMylarSeries: false,
    importLocalArtwork: false,
    importBarcodeIsbn: false,
    scanForceModifiedTime: false,
    scanInterval: l.scanning_config.enabled ? 'DAILY' : 'DISABLED',
    scanOnStartup: l.scanning_config.scan_on_start,
    scanCbx: true,
    scanPdf: true,
    scanEpub: true,
    scanDirectoryExclusions: [],
    repairExtensions: false,
    convertToCbz: false,
    emptyTrashAfterScan: false,
    seriesCover: 'FIRST',
    hashFiles: true,
    hashPages: false,
    hashKoreader: false,
    analyzeDimensions: true,
    unavailable: false,
  };
}

/** What a series' books contribute to its DTO (`booksMetadata`). */
export interface SeriesBooksAggregate {
  authors: AuthorDto[];
  tags: string[];
  releaseYear: number | null;
}

export function seriesDto(s: SeriesView, books: SeriesBooksAggregate): SeriesDto {
  const m = s.metadata;
  const lock = (field: string) => s.locks[field] === true;
  const metadata: SeriesMetadataDto = withoutUndefined({
    status: seriesStatus(m.status),
    statusLock: lock('status'),
    title: m.title,
    titleLock: lock('title'),
    titleSort: m.sort_title,
    titleSortLock: lock('sort_title'),
    summary: text(m.summary),
    summaryLock: lock('summary'),
    readingDirection: DIRECTIONS[m.reading_direction ?? ''] ?? '',
    readingDirectionLock: lock('reading_direction'),
    publisher: text(m.publisher),
    publisherLock: lock('publisher'),
    // The age the access rules compare (media/metadata/age-ratings.ts over the series' highest rating).
    ageRating: m.age ?? undefined,
    ageRatingLock: lock('age_rating'),
    language: text(m.language),
    languageLock: lock('language'),
    genres: m.genres,
    genresLock: lock('genres'),
    tags: m.tags,
    tagsLock: lock('tags'),
    totalBookCount: m.total_book_count ?? undefined,
    totalBookCountLock: lock('total_book_count'),
    sharingLabels: s.sharing_labels,
    sharingLabelsLock: false,
    links: m.links,
    linksLock: lock('links'),
    alternateTitles: m.alternate_titles,
    alternateTitlesLock: lock('alternate_titles'),
    created: s.created_at,
    lastModified: s.updated_at,
  });
  return {
    id: s.id,
    libraryId: s.library_id,
    name: s.name,
    url: s.path,
    created: s.created_at,
    lastModified: s.updated_at,
    fileLastModified: s.updated_at,
    booksCount: s.book_count,
    booksReadCount: s.books_read_count,
    booksUnreadCount: s.books_unread_count,
    booksInProgressCount: s.books_in_progress_count,
    metadata,
    booksMetadata: withoutUndefined({
      authors: books.authors,
      tags: books.tags,
      releaseDate: dateOfYear(books.releaseYear ?? m.year),
      summary: '',
      summaryNumber: '',
      created: s.created_at,
      lastModified: s.updated_at,
    }),
    deleted: false,
    oneshot: false,
  };
}

/** Komga's own names for the formats (its clients match these), not the download's media type. */
const KOMGA_MEDIA_TYPES: Record<string, string> = {
  cbz: 'application/zip',
  cbr: 'application/x-rar-compressed',
  epub: 'application/epub+zip',
  pdf: 'application/pdf',
};

/**
 * Whether Komga would call an EPUB DiViNa-compatible: every page in its reading order is a single image (a
 * fixed-layout, image-only book), so image readers can show it. Mihon lists an EPUB only with this flag; a
 * novel's chapters are XHTML and stay out of image readers.
 */
export function isDivinaCompatible(format: string | null, pages: readonly PageInfo[]): boolean {
  return format === 'epub' && pages.length > 0 && pages.every((p) => p.media_type.startsWith('image/'));
}

function mediaDto(b: BookView, divinaCompatible: boolean): MediaDto {
  const profile = b.format === 'epub' ? 'EPUB' : b.format === 'pdf' ? 'PDF' : 'DIVINA';
  return {
    status: b.analysis_error !== null ? 'ERROR' : b.format === null ? 'UNSUPPORTED' : 'READY',
    mediaType: KOMGA_MEDIA_TYPES[b.format ?? ''] ?? 'application/octet-stream',
    pagesCount: b.page_count,
    comment: text(b.analysis_error),
    mediaProfile: profile,
    epubDivinaCompatible: profile === 'EPUB' && divinaCompatible,
    epubIsKepub: false,
  };
}

/** Where a book stands in its series: Komga's `number` (1-based position) and `numberSort`. */
export interface BookPlace {
  position: number;
  numberSort: number;
}

const baseName = (fileName: string) => fileName.replace(/\.[^.]+$/, '');

export function bookDto(b: BookView, seriesTitle: string, place: BookPlace, divinaCompatible: boolean): BookDto {
  const progress = b.progress;
  const lock = (field: string) => b.locks[field] === true;
  return withoutUndefined({
    id: b.id,
    seriesId: b.series_id,
    seriesTitle,
    libraryId: b.library_id,
    name: baseName(b.file_name),
    url: b.path,
    number: place.position,
    created: b.created_at,
    lastModified: b.updated_at,
    fileLastModified: b.file_modified_at,
    sizeBytes: b.file_size,
    size: humanSize(b.file_size),
    media: mediaDto(b, divinaCompatible),
    metadata: withoutUndefined({
      title: b.metadata.title,
      titleLock: lock('title'),
      summary: text(b.metadata.summary),
      summaryLock: lock('summary'),
      number: b.metadata.number ?? String(place.position),
      numberLock: lock('number'),
      numberSort: place.numberSort,
      numberSortLock: lock('number_sort'),
      releaseDate: b.metadata.release_date ?? dateOfYear(b.metadata.year),
      releaseDateLock: lock('release_date'),
      authors: b.metadata.authors,
      authorsLock: lock('authors'),
      tags: b.metadata.tags,
      tagsLock: lock('tags'),
      isbn: text(b.metadata.isbn),
      isbnLock: lock('isbn'),
      links: b.metadata.links,
      linksLock: lock('links'),
      created: b.created_at,
      lastModified: b.updated_at,
    }),
    readProgress: progress
      ? {
          page: progress.current_page,
          completed: progress.is_completed,
          readDate: progress.updated_at,
          created: progress.updated_at,
          lastModified: progress.updated_at,
          deviceId: '',
          deviceName: '',
        }
      : undefined,
    deleted: false,
    fileHash: text(b.hash),
    oneshot: false,
  });
}

export function pageDto(p: PageInfo): PageDto {
  return withoutUndefined({
    number: p.number,
    fileName: p.file_name,
    mediaType: p.media_type,
    width: p.width ?? undefined,
    height: p.height ?? undefined,
    sizeBytes: p.size || undefined,
    size: humanSize(p.size ?? 0),
  });
}

/**
 * Our age limit as Komga's restriction, which says the same thing: a limit that hides unrated series is
 * ALLOW_ONLY that age; one that shows them is EXCLUDE the next age (Komga hides rated `age` or older, and shows
 * the unrated).
 */
function ageRestrictionDto(maxAge: number | null, includeUnrated: boolean): AgeRestrictionDto | null {
  if (maxAge === null) return null;
  return includeUnrated ? { age: maxAge + 1, restriction: 'EXCLUDE' } : { age: maxAge, restriction: 'ALLOW_ONLY' };
}

/**
 * Komga roles from our permissions: ADMIN, FILE_DOWNLOAD (books-read), PAGE_STREAMING (pages-read). What the
 * user may see is the caller's scope (access/scope.ts), read with the user for this request: an admin, or a user
 * without restrictions, shares every library.
 */
export function userDto(caller: Caller): UserDto {
  const roles = ['USER'];
  if (caller.isAdmin) roles.push('ADMIN');
  if (caller.permissions.has('books-read')) roles.push('FILE_DOWNLOAD');
  if (caller.permissions.has('pages-read')) roles.push('PAGE_STREAMING');
  const scope = scopeFor(caller);
  const libraryIds = scope.all ? null : scope.libraryIds;
  const rule = scope.all ? null : scope.series;
  return {
    id: caller.user.id,
    email: caller.user.email,
    roles,
    sharedAllLibraries: libraryIds === null,
    sharedLibrariesIds: libraryIds === null ? [] : [...libraryIds],
    labelsAllow: rule ? [...rule.labelsAllow] : [],
    labelsExclude: rule ? [...rule.labelsExclude] : [],
    ageRestriction: rule ? ageRestrictionDto(rule.maxAge, rule.includeUnrated) : null,
  };
}

/** Komga's collection: a named group of series; `seriesIds` are those the caller sees, in the collection's order. */
export interface CollectionDto {
  id: string;
  name: string;
  ordered: boolean;
  seriesIds: string[];
  createdDate: string;
  lastModifiedDate: string;
  filtered: boolean;
}

/**
 * `filtered`: Komga sets it when the caller's restrictions hid some members. Our services give the visible members
 * only, so it is set for every restricted caller (it may hide something), never for an unrestricted one.
 */
export function collectionDto(c: CollectionView, restricted: boolean): CollectionDto {
  return {
    id: c.id,
    name: c.name,
    ordered: c.ordered,
    seriesIds: c.series_ids,
    createdDate: c.created_at,
    lastModifiedDate: c.updated_at,
    filtered: restricted,
  };
}

/** Komga's read list: ordered books across series; `bookIds` are those the caller sees, in list order. */
export interface ReadListDto {
  id: string;
  name: string;
  summary: string;
  ordered: boolean;
  bookIds: string[];
  createdDate: string;
  lastModifiedDate: string;
  filtered: boolean;
}

/** Read lists here always keep the order they were given (Komga's `ordered: true`). */
export function readListDto(l: ReadListView, bookIds: string[], restricted: boolean): ReadListDto {
  return {
    id: l.id,
    name: l.name,
    summary: l.summary,
    ordered: true,
    bookIds,
    createdDate: l.created_at,
    lastModifiedDate: l.updated_at,
    filtered: restricted,
  };
}

/** Komga's v1 tracker progress (read lists, and series for older Tachiyomi builds). */
export interface TachiyomiReadProgressDto {
  booksCount: number;
  booksReadCount: number;
  booksUnreadCount: number;
  booksInProgressCount: number;
  lastReadContinuousIndex: number;
}
