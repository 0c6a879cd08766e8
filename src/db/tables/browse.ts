/**
 * Side tables that make browsing fast (migration 0010_browse_perf). Derived data only, kept in step by
 * triggers: nobody writes them, and dropping and refilling them loses nothing.
 */

/** One element of a series' `genres` or `tags` JSON list, lower-cased (genre/tag filters look here). */
export interface SeriesListValuesTable {
  series_id: string;
  /** `genres` or `tags`. */
  field: string;
  value_lower: string;
}

/** One element of a book's `genres` or `tags` JSON list, lower-cased. */
export interface BookListValuesTable {
  book_id: string;
  /** `genres` or `tags`. */
  field: string;
  value_lower: string;
}

export interface BrowseTables {
  series_list_values: SeriesListValuesTable;
  book_list_values: BookListValuesTable;
}
