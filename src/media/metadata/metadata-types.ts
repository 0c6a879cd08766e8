/** Where a metadata field came from, highest priority first (the spec's order). */
export const METADATA_SOURCES = ['comicinfo', 'opf', 'pdf', 'filename', 'folder'] as const;
export type PrecedenceSource = (typeof METADATA_SOURCES)[number];
/** `file` marks facts measured from the file itself (the page count), which no declaration overrides. */
export type MetadataSource = PrecedenceSource | 'file';

export type AuthorRole =
  'writer' | 'penciller' | 'inker' | 'colorist' | 'letterer' | 'cover' | 'editor' | 'translator' | 'illustrator' | 'author' | 'other';

export interface Author {
  name: string;
  role: AuthorRole;
}

export interface WebLink {
  label: string | null;
  url: string;
}

export interface ExternalId {
  /** Where the id belongs: `isbn`, `gtin`, `uuid`, `url`, or the scheme an OPF identifier declares. */
  source: string;
  id: string;
}

export type ReadingDirection = 'ltr' | 'rtl' | 'vertical' | 'webtoon';

/** A reading order a book is part of (ComicInfo `StoryArc`, or `AlternateSeries`), and its place in it as written. */
export interface StoryArc {
  name: string;
  /** `StoryArcNumber` (or `AlternateNumber`) as written, leading zeros removed; null when none is given. */
  number: string | null;
}

/** The one normalised metadata record of a book; field names follow the API (snake_case). */
export interface BookMetadata {
  title: string | null;
  series: string | null;
  /** As written ("12.5", "1a", "0"). */
  number: string | null;
  /** Numeric value of `number` for ordering. */
  number_sort: number | null;
  volume: number | null;
  year: number | null;
  month: number | null;
  day: number | null;
  summary: string | null;
  publisher: string | null;
  authors: Author[];
  genres: string[];
  tags: string[];
  language: string | null;
  age_rating: string | null;
  page_count: number | null;
  isbn: string | null;
  links: WebLink[];
  reading_direction: ReadingDirection | null;
  external_ids: ExternalId[];
  status: string | null;
  /**
   * ComicInfo `SeriesGroup`: the groups (collections) the book's series belongs to. Records stored before this
   * field existed lack it: read them with `listMembershipsOf`, which takes an absent list for an empty one.
   */
  series_groups: string[];
  /** ComicInfo `StoryArc` with `StoryArcNumber` (paired by position), then `AlternateSeries` with `AlternateNumber`. */
  story_arcs: StoryArc[];
  /** Which source gave each field that has a value. */
  sources: Partial<Record<MetadataField, MetadataSource>>;
}

export type MetadataField = Exclude<keyof BookMetadata, 'sources'>;

/** What one source knows; absent keys mean "this source says nothing". */
export type MetadataFields = Partial<Omit<BookMetadata, 'sources'>>;
