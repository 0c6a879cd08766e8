import { convertedFormatFor, MEDIA_TYPE_BY_FORMAT } from '../../../media/images/images.js';
import type { PageRequest } from '../../../http/pagination.js';
import type { LibraryView } from '../../../libraries/index.js';
import type { SeriesView } from '../../../catalog/index.js';
import type { FeedBook } from '../shared/feed-catalog.js';
import {
  acquisitionMediaType,
  DIVINA_MANIFEST,
  languageTag,
  OPDS2_FEED,
  OPDS2_PUBLICATION,
  OPDS_PROGRESSION,
} from '../shared/media-types.js';

/** A Readium Link Object. */
export interface Link {
  href: string;
  type?: string;
  rel?: string | string[];
  title?: string;
  templated?: boolean;
  width?: number;
  height?: number;
  size?: number;
  properties?: Record<string, unknown>;
}

export interface Publication {
  metadata: Record<string, unknown>;
  links: Link[];
  images?: Link[];
}

export interface Group {
  metadata: { title: string; numberOfItems?: number };
  links?: Link[];
  navigation?: Link[];
  publications?: Publication[];
}

export interface Opds2Feed {
  metadata: { title: string; modified?: string; numberOfItems?: number; itemsPerPage?: number; currentPage?: number };
  links: Link[];
  navigation?: Link[];
  publications?: Publication[];
  groups?: Group[];
}

export const PREFIX = '/opds/v2';

export const paths = {
  root: () => PREFIX,
  libraries: () => `${PREFIX}/libraries`,
  library: (id: string) => `${PREFIX}/libraries/${id}`,
  allSeries: () => `${PREFIX}/series`,
  series: (id: string) => `${PREFIX}/series/${id}`,
  collections: () => `${PREFIX}/collections`,
  collection: (id: string) => `${PREFIX}/collections/${id}`,
  readLists: () => `${PREFIX}/readlists`,
  readList: (id: string) => `${PREFIX}/readlists/${id}`,
  wantToRead: () => `${PREFIX}/want-to-read`,
  recentlyAdded: () => `${PREFIX}/books/recently-added`,
  keepReading: () => `${PREFIX}/books/keep-reading`,
  onDeck: () => `${PREFIX}/books/on-deck`,
  search: () => `${PREFIX}/search{?query}`,
  book: (id: string) => `${PREFIX}/books/${id}`,
  manifest: (id: string) => `${PREFIX}/books/${id}/manifest`,
  page: (id: string, n: number) => `${PREFIX}/books/${id}/pages/${n}`,
  pageTemplate: (id: string) => `${PREFIX}/books/${id}/pages/{pageNumber}?pse=1{&maxWidth}`,
  progression: (id: string) => `${PREFIX}/books/${id}/progression`,
  file: (id: string) => `${PREFIX}/books/${id}/file`,
  cover: (id: string) => `${PREFIX}/books/${id}/cover`,
  thumbnail: (id: string) => `${PREFIX}/books/${id}/thumbnail`,
};

export const REL = {
  acquisition: 'http://opds-spec.org/acquisition',
  progression: 'http://opds-spec.org/progression',
  pse: 'http://vaemendis.net/opds-pse/stream',
  sortNew: 'http://opds-spec.org/sort/new',
} as const;

/**
 * The links every feed carries: self, start, and the search template. The template is an absolute URL on
 * `base` (the server's public origin): some clients cannot resolve a relative template.
 */
export function feedLinks(base: string, self: string, extra: Link[] = []): Link[] {
  return [
    { rel: 'self', href: self, type: OPDS2_FEED },
    { rel: 'start', href: paths.root(), type: OPDS2_FEED },
    { rel: 'search', href: `${base}${paths.search()}`, type: OPDS2_FEED, templated: true },
    ...extra,
  ];
}

export function paginationLinks(page: PageRequest, total: number, hrefFor: (n: number) => string): Link[] {
  const last = Math.max(1, Math.ceil(total / page.pageSize));
  return [
    { rel: 'first', href: hrefFor(1), type: OPDS2_FEED },
    ...(page.page > 1 ? [{ rel: 'previous', href: hrefFor(Math.min(page.page - 1, last)), type: OPDS2_FEED }] : []),
    ...(page.page < last ? [{ rel: 'next', href: hrefFor(page.page + 1), type: OPDS2_FEED }] : []),
    { rel: 'last', href: hrefFor(last), type: OPDS2_FEED },
  ];
}

export function paginationMetadata(page: PageRequest, total: number) {
  return { numberOfItems: total, itemsPerPage: page.pageSize, currentPage: page.page };
}

export function libraryLink(library: LibraryView): Link {
  return {
    href: paths.library(library.id),
    type: OPDS2_FEED,
    title: library.name,
    rel: 'subsection',
    properties: { numberOfItems: library.series_count },
  };
}

export function seriesLink(series: SeriesView): Link {
  return {
    href: paths.series(series.id),
    type: OPDS2_FEED,
    title: series.metadata.title,
    rel: 'subsection',
    properties: { numberOfItems: series.book_count },
  };
}

/** ComicInfo / OPF roles to Readium Web Publication metadata keys; others are `contributor`. */
const ROLE_KEYS: Record<string, string> = {
  writer: 'author',
  author: 'author',
  aut: 'author',
  penciller: 'penciler',
  penciler: 'penciler',
  inker: 'inker',
  colorist: 'colorist',
  colourist: 'colorist',
  letterer: 'letterer',
  cover: 'illustrator',
  coverartist: 'illustrator',
  illustrator: 'illustrator',
  artist: 'artist',
  editor: 'editor',
  translator: 'translator',
  narrator: 'narrator',
};

/** Books whose pages are images are comics: they get a DiViNa manifest and page links. */
export function isImageBook(item: FeedBook): boolean {
  return item.pages.length > 0 && item.pages.every((p) => p.media_type.startsWith('image/'));
}

const positive = (n: number | null | undefined) => (n !== null && n !== undefined && n > 0 ? Math.round(n) : undefined);

export function publication(item: FeedBook, thumbnailWidth: number): Publication {
  const { book, seriesTitle, pages } = item;
  const m = book.metadata;
  const metadata: Record<string, unknown> = {
    '@type': 'http://schema.org/Book',
    title: book.title,
    identifier: `urn:uuid:${book.id}`,
    modified: book.updated_at,
  };
  const language = languageTag(m.language);
  if (language) metadata.language = language;
  for (const author of m.authors) {
    const key = ROLE_KEYS[author.role.toLowerCase().replace(/[^a-z]/g, '')] ?? 'contributor';
    ((metadata[key] ??= []) as Array<{ name: string }>).push({ name: author.name });
  }
  if (m.publisher) metadata.publisher = { name: m.publisher };
  if (m.summary) metadata.description = m.summary;
  const subjects = [...new Set([...m.genres, ...m.tags])];
  if (subjects.length) metadata.subject = subjects.map((name) => ({ name }));
  if (positive(book.page_count)) metadata.numberOfPages = book.page_count;
  const position = book.number !== null && Number.isFinite(Number(book.number)) ? Number(book.number) : undefined;
  metadata.belongsTo = { series: [{ name: seriesTitle, ...(position !== undefined ? { position } : {}) }] };

  // The caller's position, where a client listing publications can use it without a request per book: on the
  // progression link (share read and its time, as the Progression document has them) and on the page-streaming
  // link (PSE's 1-based lastRead and lastReadDate). Link properties are open in the OPDS 2 schema.
  const progress = book.progress;
  const links: Link[] = [
    { rel: 'self', href: paths.book(book.id), type: OPDS2_PUBLICATION },
    {
      rel: REL.acquisition,
      href: paths.file(book.id),
      type: acquisitionMediaType(book.format),
      title: book.file_name,
      ...(positive(book.file_size) ? { size: book.file_size } : {}),
    },
    {
      rel: REL.progression,
      href: paths.progression(book.id),
      type: OPDS_PROGRESSION,
      ...(progress ? { properties: { progression: progress.progress, modified: progress.updated_at } } : {}),
    },
  ];
  if (isImageBook(item)) {
    const lastRead = progress
      ? { lastRead: progress.is_completed ? book.page_count : progress.current_page, lastReadDate: progress.updated_at }
      : {};
    links.push(
      { rel: REL.acquisition, href: paths.manifest(book.id), type: DIVINA_MANIFEST, title: 'Read online (DiViNa)' },
      {
        rel: REL.pse,
        href: paths.pageTemplate(book.id),
        type: 'image/jpeg',
        templated: true,
        properties: { numberOfItems: book.page_count, ...lastRead },
      },
    );
  }
  const cover = pages[0];
  const coverWidth = positive(cover?.width);
  const coverHeight = positive(cover?.height);
  const thumbHeight = coverWidth && coverHeight ? positive((coverHeight * Math.min(thumbnailWidth, coverWidth)) / coverWidth) : undefined;
  const images: Link[] = [
    {
      href: paths.cover(book.id),
      type: 'image/jpeg',
      rel: 'cover',
      ...(coverWidth && coverHeight ? { width: coverWidth, height: coverHeight } : {}),
    },
    {
      href: paths.thumbnail(book.id),
      type: 'image/jpeg',
      rel: 'http://opds-spec.org/image/thumbnail',
      ...(coverWidth ? { width: Math.min(thumbnailWidth, coverWidth) } : {}),
      ...(thumbHeight ? { height: thumbHeight } : {}),
    },
  ];
  return { metadata, links, images };
}

/**
 * A DiViNa (Readium Web Publication, comics profile) manifest: the pages as the reading order, 1-based page
 * links with their own media type and size. Thorium and other Readium readers stream the book from it.
 */
export function divinaManifest(item: FeedBook, thumbnailWidth: number): Record<string, unknown> {
  const pub = publication(item, thumbnailWidth);
  return {
    '@context': 'https://readium.org/webpub-manifest/context.jsonld',
    metadata: { ...pub.metadata, conformsTo: 'https://readium.org/webpub-manifest/profiles/divina' },
    links: [
      { rel: 'self', href: paths.manifest(item.book.id), type: DIVINA_MANIFEST },
      ...pub.links.filter((l) => l.rel !== 'self' && l.type !== DIVINA_MANIFEST),
    ],
    readingOrder: item.pages.map((p, i) => {
      // A page readers cannot show as stored (BMP, AVIF, Netpbm) is linked converted, with the converted type.
      const converted = p.media_type.startsWith('image/') ? convertedFormatFor(p.media_type) : undefined;
      return {
        href: converted ? `${paths.page(item.book.id, i + 1)}?convert=${converted}` : paths.page(item.book.id, i + 1),
        type: converted ? MEDIA_TYPE_BY_FORMAT[converted] : p.media_type,
        ...(positive(p.width) && positive(p.height) ? { width: positive(p.width), height: positive(p.height) } : {}),
      };
    }),
    resources: pub.images,
  };
}
