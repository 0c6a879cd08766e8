/**
 * Metadata editing (decision 032). The series and books columns hold the values everyone reads (lists, search,
 * filters, feeds); a lock row marks a field a person set, which scans never overwrite, and keeps the file's value
 * (API shape, JSON) so that unlocking gives it back without a rescan. History rows record every change.
 */
export interface MetadataLocksTable {
  entity_id: string;
  /** The API field name (`genres`, `number_sort`...). */
  field: string;
  entity_type: 'series' | 'book';
  /** JSON: the value the files give, updated by every scan while the field is locked. */
  file_value: string;
  locked_at: string;
}

export interface MetadataHistoryTable {
  id: string;
  /** Order of the entries (epoch ms × 1000 + the entry's index in its write). */
  seq: number;
  /** One per request (a bulk change is one group), per undo, or per scan write. */
  group_id: string;
  entity_type: 'series' | 'book';
  entity_id: string;
  field: string;
  /** JSON values in the API shape. */
  before_value: string;
  after_value: string;
  /** 0/1. */
  before_locked: number;
  after_locked: number;
  /** JSON: the file's value held by the lock before the change (null when it was not locked). */
  before_file_value: string | null;
  /** `person` or `scan`. */
  source: string;
  user_id: string | null;
  /** Set when the entry was undone. */
  undone_at: string | null;
  created_at: string;
}

/**
 * Online databases' answers, kept for a while (catalog/identify/response-cache-repository.ts): identifying the same
 * series twice sends nothing the second time. `request_key` is a hash of the request (method, URL, body), never a
 * key or token; `body` the JSON answer.
 */
export interface MetadataResponsesTable {
  provider: string;
  request_key: string;
  body: string;
  fetched_at: string;
  expires_at: string;
}

export interface MetadataTables {
  metadata_locks: MetadataLocksTable;
  metadata_history: MetadataHistoryTable;
  metadata_responses: MetadataResponsesTable;
}
