/**
 * Every event the server publishes, by name. Entity events carry the spec's payload; scan events feed
 * `/scans/stream`; `task_progress` feeds `/tasks/stream`. Payloads are plain JSON so a bridge can ship them
 * to other processes unchanged.
 */
export const ENTITY_EVENTS = [
  'library_created',
  'library_updated',
  'library_deleted',
  'series_created',
  'series_updated',
  'series_deleted',
  'book_created',
  'book_updated',
  'book_deleted',
  'cover_updated',
] as const;
export type EntityEventName = (typeof ENTITY_EVENTS)[number];

/** The spec's entity event payload: `type` equals the event name; `book_id` only on book events. */
export interface EntityEvent {
  type: EntityEventName;
  book_id?: string;
  series_id?: string;
  library_id: string;
  timestamp: string;
}

export interface ScanCounters {
  files_discovered: number;
  files_processed: number;
  series_created: number;
  books_added: number;
  books_updated: number;
  books_deleted: number;
  books_restored: number;
  /** Books the scan found as they were: skipped by size and mtime (normal), or re-analysed to the same values (deep). */
  books_unchanged: number;
  errors: number;
}

/** Counters of a scan that has processed nothing yet. */
export const emptyScanCounters = (): ScanCounters => ({
  files_discovered: 0,
  files_processed: 0,
  series_created: 0,
  books_added: 0,
  books_updated: 0,
  books_deleted: 0,
  books_restored: 0,
  books_unchanged: 0,
  errors: 0,
});

export type ScanMode = 'normal' | 'deep';

export interface ScanEvent extends ScanCounters {
  type: ScanEventName;
  library_id: string;
  task_id: string;
  mode: ScanMode;
  timestamp: string;
  /** Only on scan_failed. */
  error?: string;
}

export const SCAN_EVENTS = ['scan_started', 'scan_progress', 'scan_completed', 'scan_failed', 'scan_cancelled'] as const;
export type ScanEventName = (typeof SCAN_EVENTS)[number];

/** A `task_progress` message as `/tasks/stream` sends it. */
export interface TaskProgressEvent {
  task_id: string;
  task_type: string;
  status: string;
  progress: { current: number; total: number; message: string };
}

/** What the task worker publishes: the message and the task's library (null: none), which decides who may hear it. */
export interface TaskProgressPublished extends TaskProgressEvent {
  library_id: string | null;
}

/** The inbox's events on `/events/stream` (libraries/inbox): heard only by those who may file into the library. */
export const INBOX_EVENTS = ['inbox_item_added', 'inbox_item_filed'] as const;
export type InboxEventName = (typeof INBOX_EVENTS)[number];

export interface InboxEvent {
  type: InboxEventName;
  item_id: string;
  library_id: string;
  /** The item's status: `review`, `duplicate`, `clash`, `damaged` when added; `filed` when filed. */
  status: string;
  /** On `inbox_item_filed`: the book the file became and its series. */
  book_id?: string;
  series_id?: string;
  timestamp: string;
}

export type EventMap = { [K in EntityEventName]: EntityEvent } & { [K in ScanEventName]: ScanEvent } & {
  [K in InboxEventName]: InboxEvent;
} & {
  task_progress: TaskProgressPublished;
};
export type EventName = keyof EventMap;
