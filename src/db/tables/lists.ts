/**
 * Collections (groups of series), read lists (ordered books across series) and each user's "want to read" shelf.
 *
 * Ownership: `owner_user_id` null is a shared list everyone may see (filtered by each viewer's access); otherwise
 * the list is its owner's alone. `source`: `user` (made through the API) or `comicinfo` (made by scans from
 * ComicInfo `SeriesGroup` / `StoryArc`); `edited` (0/1) is set when a person changes a list that scans made, after
 * which scans no longer rewrite it. Members cascade with their list, series and books; a read list entry whose book
 * is missing keeps what named it (`wanted_*`, from a CBL file) so a later scan can fill the gap.
 */
export interface CollectionsTable {
  id: string;
  name: string;
  /** Lower-cased name: unique among the shared lists, and among one owner's. */
  name_key: string;
  summary: string;
  /** 0/1: the series keep the order given (else they sort by name). */
  ordered: number;
  owner_user_id: string | null;
  /** The series whose cover is the collection's (null: the first series'). */
  cover_series_id: string | null;
  source: string;
  edited: number;
  created_at: string;
  updated_at: string;
}

export interface CollectionSeriesTable {
  collection_id: string;
  series_id: string;
  /** 0-based order within the collection. */
  position: number;
}

export interface ReadListsTable {
  id: string;
  name: string;
  name_key: string;
  summary: string;
  owner_user_id: string | null;
  cover_book_id: string | null;
  source: string;
  edited: number;
  created_at: string;
  updated_at: string;
}

export interface ReadListItemsTable {
  id: string;
  read_list_id: string;
  /** 0-based order within the list. */
  position: number;
  /** null while the entry matches no book (kept from a CBL import). */
  book_id: string | null;
  /** What the entry asked for (CBL `Series`, `Number`, `Volume`, `Year`, ComicVine ids); null when added by id. */
  wanted_series: string | null;
  wanted_number: string | null;
  wanted_volume: string | null;
  wanted_year: string | null;
  wanted_cv_series: string | null;
  wanted_cv_issue: string | null;
}

export interface WantToReadTable {
  user_id: string;
  series_id: string;
  created_at: string;
}

export interface ListTables {
  collections: CollectionsTable;
  collection_series: CollectionSeriesTable;
  read_lists: ReadListsTable;
  read_list_items: ReadListItemsTable;
  want_to_read: WantToReadTable;
}
