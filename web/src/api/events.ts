import type { components } from './schema.gen';
import type { TaskProgressEvent as ServerTaskProgressEvent } from '../../../src/events/types';

/**
 * The payloads of the server's event streams, as the server itself declares them (src/events/types.ts; the
 * OpenAPI document cannot describe a stream's messages). Type-only: nothing of the server reaches the bundle,
 * and a change of a payload breaks this build instead of a screen.
 */
export type { EntityEvent, ScanEvent } from '../../../src/events/types';

/** A `task_progress` message; its status is one of a task's statuses. */
export type TaskProgressEvent = Omit<ServerTaskProgressEvent, 'status'> & { status: components['schemas']['TaskStatus'] };
