/**
 * The library grid's state as it lives in the URL (`/libraries?sort=name,desc&genre=Action&read=unread`), so
 * back/forward, reloads and shared links show the same grid. Parsing never throws: unknown or malformed
 * values fall back to the defaults.
 */
export const SERIES_SORT_FIELDS = [
  'name',
  'date_added',
  'date_updated',
  'release_date',
  'date_read',
  'book_count',
  'file_size',
  'page_count',
] as const;
export const BOOK_SORT_FIELDS = ['title', 'number', 'file_size', 'page_count', 'created_at', 'modified_at'] as const;
export const READ_STATUSES = ['unread', 'in_progress', 'read'] as const;
/** Chips that filter series; books take only genre, tag and read status among them. */
export const FILTER_FIELDS = ['genre', 'tag', 'status', 'publisher', 'language'] as const;
export const BOOK_FILTER_FIELDS = ['genre', 'tag'] as const;

export type SeriesSortField = (typeof SERIES_SORT_FIELDS)[number];
export type BookSortField = (typeof BOOK_SORT_FIELDS)[number];
export type ReadStatus = (typeof READ_STATUSES)[number];
export type FilterField = (typeof FILTER_FIELDS)[number];
export type Direction = 'asc' | 'desc';

export interface LibrarySearch {
  view: 'series' | 'books';
  /** `field,direction`, one of the view's sort fields. */
  sort: string;
  /** Full-text search; empty for none. */
  q: string;
  /** Across different fields: all must hold (`all`) or any (`any`). Values of one field are always OR-ed. */
  match: 'all' | 'any';
  genre: string[];
  tag: string[];
  status: string[];
  publisher: string[];
  language: string[];
  read: ReadStatus[];
}

export const DEFAULT_SERIES_SORT = 'name,asc';
export const DEFAULT_BOOK_SORT = 'title,asc';

const strings = (value: unknown): string[] => {
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  return [
    ...new Set(
      list
        .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
        .map(String)
        .filter((v) => v.trim() !== ''),
    ),
  ];
};

export function parseSort(sort: string, fields: readonly string[], fallback: string): { field: string; direction: Direction } {
  const [field = '', direction = 'asc'] = sort.split(',');
  if (!fields.includes(field) || (direction !== 'asc' && direction !== 'desc')) return parseSort(fallback, fields, fallback);
  return { field, direction };
}

export function validateLibrarySearch(raw: Record<string, unknown>): LibrarySearch {
  const view = raw.view === 'books' ? 'books' : 'series';
  const fields = view === 'books' ? BOOK_SORT_FIELDS : SERIES_SORT_FIELDS;
  const fallback = view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT;
  const sortRaw = typeof raw.sort === 'string' ? raw.sort : fallback;
  const { field, direction } = parseSort(sortRaw, fields, fallback);
  return {
    view,
    sort: `${field},${direction}`,
    q: typeof raw.q === 'string' ? raw.q : typeof raw.q === 'number' ? String(raw.q) : '',
    match: raw.match === 'any' ? 'any' : 'all',
    genre: strings(raw.genre),
    tag: strings(raw.tag),
    status: strings(raw.status),
    publisher: strings(raw.publisher),
    language: strings(raw.language),
    read: strings(raw.read).filter((r): r is ReadStatus => (READ_STATUSES as readonly string[]).includes(r)),
  };
}

/** The URL keeps only what differs from the defaults, so a plain grid has a plain URL. */
export function compactLibrarySearch(search: LibrarySearch): Partial<LibrarySearch> {
  const out: Partial<LibrarySearch> = {};
  if (search.view !== 'series') out.view = search.view;
  if (search.sort !== (search.view === 'books' ? DEFAULT_BOOK_SORT : DEFAULT_SERIES_SORT)) out.sort = search.sort;
  if (search.q) out.q = search.q;
  if (search.match !== 'all') out.match = search.match;
  for (const f of FILTER_FIELDS) if (search[f].length) out[f] = search[f];
  if (search.read.length) out.read = search.read;
  return out;
}

export const EMPTY_LIBRARY_SEARCH: LibrarySearch = validateLibrarySearch({});

export function hasFilters(search: LibrarySearch): boolean {
  return search.read.length > 0 || FILTER_FIELDS.some((f) => search[f].length > 0);
}
