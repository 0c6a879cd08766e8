import type { ColumnType, Generated } from 'kysely';

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
  /**
   * `person`: a person set it, and only a person changes it. `provider`: an online database's value applied by
   * identification; scans keep it like any lock, the next identification may replace it.
   */
  held_by: Generated<string>;
  /** Where a provider's value came from, in words ("AniList 21, 2026-12-01"); null for a person's. */
  source: string | null;
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
  /** `person`, `scan` or `provider`. */
  source: string;
  /** A provider's entry, in words ("AniList 21"); null otherwise. */
  source_detail: ColumnType<string | null, string | null | undefined, string | null>;
  /** Who held the lock before the change (`person`, `provider`; null when it was not locked). */
  before_held_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** The lock's source before the change (a provider's, in words), to put back on undo. */
  before_source: ColumnType<string | null, string | null | undefined, string | null>;
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

/** An online database's settings as an administrator set them (catalog/identify): one row per provider. */
export interface MetadataProvidersTable {
  /** `anilist`, `mangadex`… or an HTTP provider's name. */
  name: string;
  /** `builtin` or `http` (the HTTP provider contract). */
  kind: string;
  enabled: number;
  /** Lower first. */
  priority: number;
  /** JSON array: `manga`, `comics`, `books`. */
  media_types: string;
  /** An HTTP provider's address (a built-in one's comes from `metadata.providers.<name>.base_url`). */
  base_url: string | null;
  /** An HTTP provider's header name for its secret (e.g. `Authorization`). */
  header_name: string | null;
  /** The key or token, encrypted (util/secret-box.ts); never returned. */
  secret: string | null;
  /** Set when the provider's daily quota ran out or a 429 asked for a long wait. */
  paused_until: string | null;
  /** The UTC day `quota_used` counts (YYYY-MM-DD). */
  quota_day: string | null;
  quota_used: number;
  /** The last failure, in words; null after a success. */
  last_problem: string | null;
  updated_at: string;
}

/** Series identification could not settle alone: candidates kept for a person, or what was decided. */
export interface MetadataReviewsTable {
  id: string;
  series_id: string;
  library_id: string;
  /** `pending` (0.7 ≤ best < auto), `no_match` (best < 0.7), `accepted`, `rejected`. */
  status: string;
  /** The title searched for. */
  query: string;
  /** JSON: the best candidates, scored, best first. */
  candidates: string;
  best_score: number;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

export interface MetadataTables {
  metadata_providers: MetadataProvidersTable;
  metadata_reviews: MetadataReviewsTable;
  metadata_locks: MetadataLocksTable;
  metadata_history: MetadataHistoryTable;
  metadata_responses: MetadataResponsesTable;
}
