import type { components } from './schema.gen';

/**
 * The payloads of the server's event streams, from the OpenAPI document (each stream's `text/event-stream` answer
 * names its message schema), so a change of a payload breaks this build instead of a screen.
 */
export type EntityEvent = components['schemas']['EntityEvent'];
export type ScanEvent = components['schemas']['ScanEvent'];
/** A `task_progress` message; its status is one of a task's statuses. */
export type TaskProgressEvent = components['schemas']['TaskProgressEvent'];
