import type { ColumnType } from 'kysely';
/**
 * Reading: current progress per user and book, and the statistics records (read-throughs, daily activity,
 * devices).
 *
 * Purge rules (see tables/catalog.ts): `read_progress` references books with ON DELETE CASCADE, so a purged
 * book takes the users' current progress with it. The statistics tables have no foreign key to books and keep
 * the book title and series name, so finished read-throughs and reading time survive a purge and are shown
 * under "Removed from library". Every table cascades with its user.
 */
export interface ReadProgressTable {
  user_id: string;
  book_id: string;
  /** 1-based page the reader is on (0 only for a book without pages). */
  current_page: number;
  /** 0/1. */
  is_completed: number;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
  /** Device of the last update (see reading/progress/device.ts). */
  device_id: string | null;
}

/** One finished reading of a book (each completion adds one). */
export interface ReadThroughsTable {
  id: string;
  user_id: string;
  book_id: string;
  series_id: string;
  library_id: string;
  book_title: string;
  series_name: string;
  page_count: number;
  started_at: string;
  completed_at: string;
  device_id: string;
}

/** Pages and time per user, UTC day, book and device; incremented by every progress update. */
export interface ReadingActivityTable {
  user_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  book_id: string;
  device_id: string;
  series_id: string;
  library_id: string;
  book_title: string;
  series_name: string;
  pages_read: number;
  /** Milliseconds between consecutive updates of one reading session (see reading/progress/service.ts). */
  reading_ms: number;
  updates: number;
  last_at: string;
}

/** Devices seen per user: `key:<api key id>`, `hdr:<X-Device-Id>` or `ua:<hash of the User-Agent>`. */
export interface ReadingDevicesTable {
  user_id: string;
  device_id: string;
  /** api_key | header | user_agent. */
  kind: string;
  name: string;
  first_seen_at: string;
  last_seen_at: string;
  /** The user's name for the device; null: `name` (detected) is shown. */
  label: string | null;
  /** The reader app's own identity as it sent it (KOReader's device_id and device name, an OPDS Progression device). */
  client_device_id: string | null;
  client_name: string | null;
  /** User-Agent and protocol of the last write. */
  user_agent: string | null;
  last_protocol: string | null;
}

/**
 * The progress ledger: every change of a user's position in a book, from any protocol, in the order the server
 * received it. read_progress is its current projection (the last write wins); these rows are the history.
 * Cascades with the user and with a purged book.
 */
export interface ProgressEventsTable {
  id: string;
  user_id: string;
  book_id: string;
  /** Device of the write, as read_progress.device_id. */
  device_id: string;
  /** Who wrote it: `colophon` (native API and web app), `koreader` (kosync), `migrated` (progress from before the ledger). */
  protocol: string;
  /** JSON: the position as the protocol gave it (a page, a percentage, a KOReader xpointer, a device name...). */
  position: string;
  /** The position normalised so every protocol can show it: 1-based page (0: cleared or no pages), and 0..1. */
  page: number;
  percentage: number;
  /** 0/1. */
  is_completed: number;
  received_at: string;
  /** When the client says it recorded the position (null: it did not say; the time is received_at). */
  client_at: string | null;
  /** 0/1: 0 for a position older than the current one when it arrived (history only, never the position). */
  applied: number;
  /** The client's own id of a queued position (ProgressUpdate.entry_id): the same one twice is recorded once. */
  client_entry_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The last position KOReader sent per user and document id (protocols/koreader); book_id null until a book matches. */
export interface KosyncDocumentsTable {
  user_id: string;
  document: string;
  book_id: string | null;
  /** As KOReader sent them: an xpointer or a page number as text, and 0..1. */
  progress: string;
  percentage: number;
  device: string;
  device_id: string | null;
  updated_at: string;
  /** The API key it was synced with (the device), for a position attached when its book appears. */
  api_key_id: string | null;
}

export interface ReadingTables {
  kosync_documents: KosyncDocumentsTable;
  progress_events: ProgressEventsTable;
  read_progress: ReadProgressTable;
  read_throughs: ReadThroughsTable;
  reading_activity: ReadingActivityTable;
  reading_devices: ReadingDevicesTable;
}
