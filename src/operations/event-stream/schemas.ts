import { z } from 'zod';
import { ScanCountersView } from '../../events/schemas.js';
import {
  ENTITY_EVENTS,
  INBOX_EVENTS,
  SCAN_EVENTS,
  type EntityEvent,
  type InboxEvent,
  type ScanEvent,
  type TaskProgressEvent,
} from '../../events/types.js';
import { TaskStatus } from '../tasks/schemas.js';

/**
 * The `data:` of each stream's messages, for the OpenAPI document (and so the web app's generated types): the same
 * shapes as the bus's payloads in events/types.ts, checked against them below so the two cannot drift.
 */
export const EntityEventMessage = z
  .object({
    type: z.enum(ENTITY_EVENTS),
    book_id: z.string().optional().describe('Only on book events.'),
    series_id: z.string().optional(),
    library_id: z.string(),
    timestamp: z.string(),
  })
  .meta({ id: 'EntityEvent', description: 'The data of a message of `/events/stream`; `type` equals the event name.' });

export const InboxEventMessage = z
  .object({
    type: z.enum(INBOX_EVENTS),
    item_id: z.string(),
    library_id: z.string(),
    status: z.string(),
    book_id: z.string().optional().describe('Only on inbox_item_filed.'),
    series_id: z.string().optional().describe('Only on inbox_item_filed.'),
    timestamp: z.string(),
  })
  .meta({ id: 'InboxEvent', description: 'An inbox message of `/events/stream` (to callers with books-write on the library).' });

export const ScanEventMessage = ScanCountersView.extend({
  type: z.enum(SCAN_EVENTS),
  library_id: z.string(),
  task_id: z.string(),
  mode: z.enum(['normal', 'deep']),
  timestamp: z.string(),
  error: z.string().optional().describe('Only on scan_failed.'),
}).meta({ id: 'ScanEvent', description: 'The data of a message of `/scans/stream`; `type` equals the event name.' });

export const TaskProgressMessage = z
  .object({
    task_id: z.string(),
    task_type: z.string(),
    status: TaskStatus,
    progress: z.object({ current: z.number(), total: z.number(), message: z.string() }),
  })
  .meta({ id: 'TaskProgressEvent', description: 'The data of a `task_progress` message of `/tasks/stream`.' });

/** True when A and B are the same type; a schema above that drifts from its payload fails to compile here. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const drift: [
  Same<z.infer<typeof EntityEventMessage>, EntityEvent>,
  Same<z.infer<typeof ScanEventMessage>, ScanEvent>,
  Same<z.infer<typeof InboxEventMessage>, InboxEvent>,
  Same<Omit<z.infer<typeof TaskProgressMessage>, 'status'>, Omit<TaskProgressEvent, 'status'>>,
] = [true, true, true, true];
void drift;

/** A stream's 200 answer in the OpenAPI document: `text/event-stream` whose messages carry `data`. */
export const streamOf = (data: z.ZodType, description: string) => ({
  200: { description, content: { 'text/event-stream': { schema: data } } },
});
