/**
 * The inbox (libraries/inbox): folders whose new files are identified, named and filed into a library.
 *
 * `inbox_folders`: a watched folder, the library it files into and the naming template (naming-template.ts); the
 * watch is leased (`holder`, `expires_at`) so one instance among several sharing the database looks at it.
 *
 * `inbox_items`: one file found in a folder (or uploaded into it) and what is proposed for it. `status`:
 * `review` (waiting for a person), `duplicate` (its content, or its series and number, is already in a library),
 * `clash` (a file of the proposed name exists), `damaged` (unreadable or unsupported: `problem` says why), `filed`,
 * `rejected` (moved to the folder's `rejected` subfolder, never deleted), `failed` (filing went wrong: `problem`).
 * `reasons` is a JSON array of sentences (the explainer's words, in English: localised when shown); `metadata` the
 * fields the analysis found, as JSON.
 */
export interface InboxFoldersTable {
  id: string;
  path: string;
  library_id: string;
  template: string;
  /** 0/1: file without review when the match is certain. */
  auto_file: number;
  holder: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface InboxItemsTable {
  id: string;
  folder_id: string;
  library_id: string;
  /** Absolute path of the file while it waits in the inbox. */
  file_path: string;
  file_name: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  format: string | null;
  status: string;
  /** The existing series it is matched to; null for a new one. */
  series_id: string | null;
  series_name: string | null;
  number: string | null;
  volume: number | null;
  year: number | null;
  title: string | null;
  /** 0..1: how sure the match is (1: the series' name given by the file's metadata, the same as an existing series'). */
  score: number;
  /** Relative to the library's folder, `/` separators. */
  proposed_path: string | null;
  /** 1 when a person changed the proposal (series, number or name): later analysis keeps it. */
  edited: number;
  reasons: string;
  metadata: string;
  duplicate_of: string | null;
  /** A book elsewhere whose file is gone and whose hash this file has: its readers' progress follows. */
  moved_from: string | null;
  problem: string | null;
  book_id: string | null;
  filed_path: string | null;
  decided_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface InboxTables {
  inbox_folders: InboxFoldersTable;
  inbox_items: InboxItemsTable;
}
