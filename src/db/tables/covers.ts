/**
 * Covers chosen by a person (PUT /series/{id}/cover, PUT /books/{id}/cover): one row per series or book, exactly
 * one of `series_id` and `book_id` set. The image itself is a re-encoded WebP under `<data_dir>/covers`, named by
 * `image_hash` (SHA-256 of the stored bytes), with its thumbnails beside it. `source`: `upload` or `page` (then
 * `source_book_id` and the 1-based `source_page` say which page it was made from, for the picker to show it).
 * Deleting the row gives the generated cover back.
 */
export interface CustomCoversTable {
  id: string;
  series_id: string | null;
  book_id: string | null;
  image_hash: string;
  source: string;
  source_book_id: string | null;
  source_page: number | null;
  width: number;
  height: number;
  updated_by: string | null;
  updated_at: string;
}

export interface CoverTables {
  custom_covers: CustomCoversTable;
}
