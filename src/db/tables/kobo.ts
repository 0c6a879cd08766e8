/**
 * Kobo e-readers synced through `/kobo/{api key}/` (protocols/kobo, protocols/kobo/devices). One device per API key with the
 * `kobo-sync` permission; a revoked key takes its rows with it.
 *
 * The sync is a difference: the books that should be on the device (the key's user's visible books, narrowed by
 * `selection`) against `kobo_synced_books`, what the device was sent. Each sync response bumps the device's
 * `generation` and stamps what it sent with it; the sync token the device echoes carries the generation it
 * received, so rows of a response the device never got (a dropped connection) are sent again.
 */
export interface KoboDevicesTable {
  api_key_id: string;
  user_id: string;
  /** The device's own id (`X-Kobo-DeviceId`), when it sent one. */
  kobo_device_id: string | null;
  /** JSON: what syncs. `{}` every visible book; else `{collections:[ids], read_lists:[ids], want_to_read:bool}`, plus `greyscale`. */
  selection: string;
  generation: number;
  last_sync_at: string | null;
  /**
   * JSON `{book_id, message, at}`: the last download that could not be given as asked (a KEPUB conversion that
   * failed, sent as the plain EPUB), shown on the device's card; null once a conversion succeeds again.
   */
  delivery_problem: string | null;
  created_at: string;
  updated_at: string;
}

export interface KoboSyncedBooksTable {
  api_key_id: string;
  book_id: string;
  /** What the book's entitlement and metadata were made from (its updated_at and content hash). */
  metadata_stamp: string;
  /** The reading position sent (the progress row's updated_at; '' none). */
  progress_stamp: string;
  /** 0/1: sent as removed; the row goes once the device has acknowledged that. */
  removed: number;
  /** The sync response that sent this row's state. */
  generation: number;
}

/** A chosen collection or read list sent to the device as a shelf (a Kobo "tag"), as books are. */
export interface KoboSyncedTagsTable {
  api_key_id: string;
  /** The collection's or read list's id. */
  tag_id: string;
  /** Its name and the books on it, as sent (a digest). */
  stamp: string;
  removed: number;
  generation: number;
}

export interface KoboTables {
  kobo_devices: KoboDevicesTable;
  kobo_synced_books: KoboSyncedBooksTable;
  kobo_synced_tags: KoboSyncedTagsTable;
}
