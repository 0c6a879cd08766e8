/**
 * Folder watching and the scan explainer.
 *
 * `library_watchers`: which process watches a library (one per library across instances sharing a database): a
 * lease its holder renews, taken over by another instance once `expires_at` has passed.
 *
 * `file_decisions`: per library and file path, the last thing a scan decided about it and why (`detail`, JSON:
 * see libraries/scanning/scanner/decisions.ts); `file_decision_log`: the last changes, kept to a bounded number per library.
 */
export interface LibraryWatchersTable {
  library_id: string;
  holder: string;
  expires_at: string;
}

export interface FileDecisionsTable {
  library_id: string;
  path: string;
  book_id: string | null;
  /** added | updated | restored | moved | failed | deleted | unchanged */
  outcome: string;
  detail: string;
  decided_at: string;
}

export interface FileDecisionLogTable {
  id: string;
  library_id: string;
  path: string;
  book_id: string | null;
  outcome: string;
  detail: string;
  decided_at: string;
}

export interface WatchingTables {
  library_watchers: LibraryWatchersTable;
  file_decisions: FileDecisionsTable;
  file_decision_log: FileDecisionLogTable;
}
