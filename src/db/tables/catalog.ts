import type { ColumnType, Generated } from 'kysely';

/**
 * The catalog: libraries, series and books. Shared by scanning, browsing, search, duplicates, OPDS and the
 * Komga layer, so the common list filters and sorts are real columns; everything else stays in JSON.
 *
 * Soft deletion: a book or series whose files disappeared keeps its row with `deleted_at` set (every list
 * filters `deleted_at IS NULL`); the scanner restores it (same id) when the file returns or a file with the
 * same hash appears elsewhere (a move). Purge removes rows for good. Tables that reference books decide what
 * a purge does to them: current reading progress cascades away with the book, reading statistics must not
 * (give them no foreign key to books and keep the book title and series name in the statistics row, shown as
 * "Removed from library" once the book is gone).
 */
export interface LibrariesTable {
  id: string;
  name: string;
  /** Absolute path as given, normalised (no trailing separator). */
  path: string;
  /** JSON: {enabled, cron_schedule, default_mode, scan_on_start}. */
  scanning_config: string;
  /** JSON object of UI settings (reading direction, title preprocessing...); shapes owned by their features. */
  settings: string;
  created_at: string;
  updated_at: string;
  last_scanned_at: string | null;
}

export interface SeriesTable {
  id: string;
  library_id: string;
  /**
   * Identity of the series inside its library: the folder path relative to the library root (POSIX
   * separators). A loose file in the library root is its own series, keyed by the file's relative path.
   */
  path: string;
  /** Display name: the metadata series name (by the spec's precedence) or the folder name. */
  name: string;
  /** Name for sorting: lower-cased, leading article kept (collation is the client's business). */
  sort_name: string;
  /** Title set by the user or a metadata provider; null means "use name". */
  title: string | null;
  summary: string | null;
  publisher: string | null;
  status: string | null;
  language: string | null;
  /** The effective rating: the highest of its books' (media/metadata/age-ratings.ts). */
  age_rating: string | null;
  /** The age `age_rating` stands for; null when unrated (age limits compare it in SQL). */
  age: number | null;
  reading_direction: string | null;
  year: number | null;
  /** JSON arrays of strings. */
  genres: string;
  tags: string;
  /** Set by a person (metadata editing); null when unknown. */
  total_book_count: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON arrays: links `{label, url}` and alternate titles `{label, title}`; set by a person. */
  links: Generated<string>;
  alternate_titles: Generated<string>;
  /** Upstream record id after a metadata fetch (duplicate detection, high confidence). */
  external_id: string | null;
  /** JSON array `{provider, id, url}`: the series' entries in online databases (identification). */
  external_ids: Generated<string>;
  /** JSON array `{name, role}`: the work's authors, from identification or a person. */
  authors: Generated<string>;
  /** JSON: the remaining aggregated metadata and per-field locks. */
  metadata: string;
  /** Cache: present books. Maintained by the scanner. */
  book_count: number;
  /** Cache: sum of present books' sizes and page counts (sort by file_size / page_count). */
  total_size: number;
  total_pages: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface BooksTable {
  id: string;
  library_id: string;
  series_id: string;
  /** Path relative to the library root, POSIX separators. Unique per library (present or soft-deleted). */
  path: string;
  file_name: string;
  /** cbz | cbr | epub | pdf, or null when the file could not be identified. */
  format: string | null;
  size: number;
  /** File modification time in epoch milliseconds (exact comparison for normal scans). */
  mtime_ms: number;
  /** SHA-256 of the file, lowercase hex. */
  hash: string | null;
  /** KOReader's partial MD5 of the file (media/analysis/koreader-md5.ts): the document id its progress sync sends. */
  koreader_md5: string | null;
  /** MD5 of file_name: the document id of KOReader's "filename" method. */
  koreader_name_md5: string | null;
  page_count: number;
  /** JSON array of pages: {number, file_name, media_type, size, width, height}. */
  pages: string;
  title: string;
  /** Number as written ("12.5", "1a"); number_sort orders it. */
  number: string | null;
  number_sort: number | null;
  volume: number | null;
  year: number | null;
  summary: string | null;
  publisher: string | null;
  language: string | null;
  isbn: string | null;
  /** YYYY-MM-DD (missing month or day as 01); `year` is its year. */
  release_date: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON array of links `{label, url}`. */
  links: Generated<string>;
  /** JSON arrays. */
  genres: string;
  tags: string;
  authors: string;
  /** JSON: the full normalised metadata record, with the source of each field. */
  metadata: string;
  /** Page number of the cover (null: first page). */
  cover_page: number | null;
  /** Why the file could not be read; null when analysis succeeded. */
  analysis_error: string | null;
  analyzed_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** A series' sharing label (lower-cased), a row each: the access rules' allowed and excluded labels match them. */
export interface SeriesSharingLabelsTable {
  series_id: string;
  label: string;
}

export interface CatalogTables {
  libraries: LibrariesTable;
  series: SeriesTable;
  series_sharing_labels: SeriesSharingLabelsTable;
  books: BooksTable;
}
