import type { PageRequest } from '../../../http/pagination.js';
import type { LibraryView } from '../../../libraries/index.js';
import type { SeriesView } from '../../../catalog/index.js';
import type { FeedBook } from '../shared/feed-catalog.js';
import {
  acquisitionMediaType,
  ATOM_ACQUISITION,
  ATOM_ENTRY,
  ATOM_NAVIGATION,
  languageTag,
  OPENSEARCH_DESCRIPTION,
  PSE_IMAGE_TYPES,
} from '../shared/media-types.js';
import type { Opds1Paths } from './paths.js';
import { el, textEl, xmlDocument, type Xml } from './xml.js';

/**
 * Every prefix any feed may use is declared on the root element, used or not: Moon+ Reader rejects a feed
 * with an undeclared prefix, and declaring all of them once keeps every feed the same.
 */
export const NAMESPACES = {
  xmlns: 'http://www.w3.org/2005/Atom',
  'xmlns:atom': 'http://www.w3.org/2005/Atom',
  'xmlns:opds': 'http://opds-spec.org/2010/catalog',
  'xmlns:dc': 'http://purl.org/dc/terms/',
  'xmlns:opensearch': 'http://a9.com/-/spec/opensearch/1.1/',
  'xmlns:pse': 'http://vaemendis.net/opds-pse/ns',
  'xmlns:thr': 'http://purl.org/syndication/thread/1.0',
} as const;

export const REL = {
  acquisition: 'http://opds-spec.org/acquisition',
  image: 'http://opds-spec.org/image',
  thumbnail: 'http://opds-spec.org/image/thumbnail',
  pse: 'http://vaemendis.net/opds-pse/stream',
  sortNew: 'http://opds-spec.org/sort/new',
} as const;

/** A fixed date for feeds that have nothing dated in them (an empty list): keeps the body, and its ETag, stable. */
const EPOCH = '1970-01-01T00:00:00.000Z';

export function latest(dates: Iterable<string | null | undefined>, fallback = EPOCH): string {
  let best: string | null = null;
  for (const d of dates) if (d && (!best || d > best)) best = d;
  return best ?? fallback;
}

export interface Pagination {
  page: PageRequest;
  /** Entries of the longest list paged (decides the last page). */
  total: number;
  /** `opensearch:totalResults` when it differs from `total` (search pages two lists at once). */
  totalResults?: number;
  /** The feed's href for another page. */
  hrefFor(page: number): string;
}

export interface AtomFeed {
  id: string;
  title: string;
  kind: 'navigation' | 'acquisition';
  selfHref: string;
  upHref?: string;
  updated: string;
  pagination?: Pagination;
  entries: Xml[];
}

function link(rel: string, href: string, type: string, extra: Record<string, string | number | null | undefined> = {}): Xml {
  return el('link', { rel, href, type, ...extra });
}

export function renderFeed(paths: Opds1Paths, feed: AtomFeed): string {
  const type = feed.kind === 'navigation' ? ATOM_NAVIGATION : ATOM_ACQUISITION;
  const p = feed.pagination;
  const totalPages = p ? Math.max(1, Math.ceil(p.total / p.page.pageSize)) : 1;
  const children: Array<Xml | null> = [
    textEl('id', feed.id),
    textEl('title', feed.title),
    textEl('updated', feed.updated),
    el('author', {}, [textEl('name', 'Colophon'), textEl('uri', paths.catalog())]),
    link('self', feed.selfHref, type),
    link('start', paths.catalog(), ATOM_NAVIGATION),
    feed.upHref ? link('up', feed.upHref, ATOM_NAVIGATION) : null,
    link('search', paths.openSearch(), OPENSEARCH_DESCRIPTION, { title: 'Search' }),
  ];
  if (p) {
    children.push(
      link('first', p.hrefFor(1), type),
      p.page.page > 1 ? link('previous', p.hrefFor(Math.min(p.page.page - 1, totalPages)), type) : null,
      p.page.page < totalPages ? link('next', p.hrefFor(p.page.page + 1), type) : null,
      link('last', p.hrefFor(totalPages), type),
      textEl('opensearch:totalResults', p.totalResults ?? p.total),
      textEl('opensearch:itemsPerPage', p.page.pageSize),
      textEl('opensearch:startIndex', p.page.offset + 1),
    );
  }
  return xmlDocument(el('feed', NAMESPACES, [...children, ...feed.entries]));
}

export interface NavigationEntry {
  id: string;
  title: string;
  updated: string;
  href: string;
  kind: 'navigation' | 'acquisition';
  rel?: string;
  content?: string;
  count?: number;
  thumbnail?: string;
}

export function navigationEntry(e: NavigationEntry): Xml {
  return el('entry', {}, [
    textEl('title', e.title),
    textEl('id', e.id),
    textEl('updated', e.updated),
    textEl('content', e.content, { type: 'text' }),
    e.thumbnail ? link(REL.thumbnail, e.thumbnail, 'image/jpeg') : null,
    link(e.rel ?? 'subsection', e.href, e.kind === 'navigation' ? ATOM_NAVIGATION : ATOM_ACQUISITION, { 'thr:count': e.count }),
  ]);
}

export function libraryEntry(paths: Opds1Paths, library: LibraryView): Xml {
  return navigationEntry({
    id: `urn:uuid:${library.id}`,
    title: library.name,
    updated: latest([library.updated_at, library.last_scanned_at]),
    href: paths.library(library.id),
    kind: 'navigation',
    content: `${library.series_count} series, ${library.book_count} books`,
    count: library.series_count,
  });
}

export function seriesEntry(paths: Opds1Paths, series: SeriesView): Xml {
  const m = series.metadata;
  const details = [`${series.book_count} ${series.book_count === 1 ? 'book' : 'books'}`, m.publisher, m.year].filter(Boolean).join(' · ');
  return navigationEntry({
    id: `urn:uuid:${series.id}`,
    title: m.title,
    updated: series.updated_at,
    href: paths.series(series.id),
    kind: 'acquisition',
    content: m.summary ? `${details}\n\n${m.summary}` : details,
    count: series.book_count,
    thumbnail: series.book_count > 0 ? paths.seriesThumbnail(series.id) : undefined,
  });
}

/** Pages a PSE client can stream: all images. The type is theirs when they share one PSE allows, else JPEG. */
export function pseImageType(pages: FeedBook['pages']): { type: string; convert: boolean } | null {
  if (pages.length === 0 || !pages.every((p) => p.media_type.startsWith('image/'))) return null;
  const first = pages[0]!.media_type;
  if (PSE_IMAGE_TYPES.has(first) && pages.every((p) => p.media_type === first)) return { type: first, convert: false };
  return { type: 'image/jpeg', convert: true };
}

const WRITER_ROLES = new Set(['writer', 'author']);

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** One book as an OPDS acquisition entry, with PSE streaming when its pages are images. */
export function bookEntry(paths: Opds1Paths, item: FeedBook, rootAttrs: Record<string, string> = {}): Xml {
  const { book, seriesTitle, pages } = item;
  const m = book.metadata;
  const progress = book.progress;
  const authors = m.authors.filter((a) => WRITER_ROLES.has(a.role.toLowerCase()));
  const contributors = m.authors.filter((a) => !WRITER_ROLES.has(a.role.toLowerCase()));
  const categories = [...new Set([...m.genres, ...m.tags])];
  const details = [
    seriesTitle,
    book.number !== null ? `#${book.number}` : null,
    `${book.page_count} pages`,
    book.format?.toUpperCase(),
    formatSize(book.file_size),
  ]
    .filter(Boolean)
    .join(' · ');
  const pse = pseImageType(pages);
  const lastRead = progress ? (progress.is_completed ? book.page_count : progress.current_page) : null;
  return el('entry', rootAttrs, [
    textEl('title', book.title),
    textEl('id', `urn:uuid:${book.id}`),
    textEl('updated', latest([book.updated_at, progress?.updated_at])),
    ...authors.map((a) => el('author', {}, [textEl('name', a.name)])),
    ...contributors.map((a) => el('contributor', {}, [textEl('name', `${a.name} (${a.role})`)])),
    textEl('dc:language', languageTag(m.language)),
    textEl('dc:publisher', m.publisher),
    textEl('dc:issued', m.year !== null && m.year > 0 && m.year < 10_000 ? String(m.year).padStart(4, '0') : null),
    textEl('dc:identifier', m.isbn ? `urn:isbn:${m.isbn}` : null),
    ...categories.map((c) => el('category', { term: c, label: c })),
    textEl('summary', m.summary, { type: 'text' }),
    textEl('content', m.summary ? `${details}\n\n${m.summary}` : details, { type: 'text' }),
    link(REL.image, paths.cover(book.id), 'image/jpeg'),
    link(REL.thumbnail, paths.thumbnail(book.id), 'image/jpeg'),
    link('alternate', paths.book(book.id), ATOM_ENTRY, { title: 'Details' }),
    link(REL.acquisition, paths.file(book.id), acquisitionMediaType(book.format), { length: book.file_size, title: book.file_name }),
    pse
      ? link(REL.pse, paths.pageStream(book.id, pse.convert), pse.type, {
          'pse:count': book.page_count,
          'pse:lastRead': lastRead,
          'pse:lastReadDate': progress ? progress.updated_at : null,
        })
      : null,
  ]);
}

/** A single entry document (the `alternate` link of a book entry): its root declares the namespaces. */
export function renderEntry(paths: Opds1Paths, item: FeedBook): string {
  return xmlDocument(bookEntry(paths, item, NAMESPACES));
}
