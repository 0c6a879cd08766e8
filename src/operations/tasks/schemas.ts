import { Uuid } from '../../http/params.js';
import { z } from 'zod';
import { PaginationQuery } from '../../http/pagination.js';
import type { TaskRow } from '../../tasks/queue.js';
import { parseJsonColumn } from '../../db/json-column.js';

export const TaskStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']).meta({
  id: 'TaskStatus',
  description: 'pending → running → completed | failed | cancelled. A pending task can also be cancelled directly.',
});

export const TASK_TYPES = [
  'scan_library',
  'analyze_book',
  'analyze_series',
  'generate_thumbnails',
  'detect_duplicates',
  'purge_deleted',
  'write_comicinfo',
  'identify_library',
  'backup',
] as const;

export const TaskProgress = z
  .object({ current: z.number().int(), total: z.number().int(), message: z.string() })
  .meta({ id: 'TaskProgress' });

export const TaskView = z
  .object({
    id: z.uuid(),
    task_id: z.uuid().describe('Same as id (the name used by progress messages).'),
    task_type: z.string().describe(`One of ${TASK_TYPES.map((t) => `\`${t}\``).join(', ')}.`),
    status: TaskStatus,
    progress: TaskProgress,
    library_id: z.uuid().nullable(),
    target_id: z.uuid().nullable().describe('The book or series the task works on.'),
    payload: z.unknown(),
    result: z.unknown().nullable().describe('What the task produced (live counters while a scan runs).'),
    error: z.string().nullable(),
    attempts: z.number().int(),
    cancel_requested: z.boolean(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .meta({ id: 'Task' });
export type TaskView = z.infer<typeof TaskView>;

export const TaskListQuery = PaginationQuery.extend({
  // A fresh enum: a named ($ref) schema inside query parameters breaks the OpenAPI generator.
  status: z.enum(TaskStatus.options).optional(),
  type: z.string().max(100).optional(),
  task_type: z.string().max(100).optional().describe('Alias of type.'),
  library_id: Uuid.optional(),
});

export const TaskStats = z
  .object({
    total: z.number().int(),
    by_status: z.record(z.string(), z.number().int()),
    by_type: z.array(
      z.object({
        task_type: z.string(),
        total: z.number().int(),
        by_status: z.record(z.string(), z.number().int()),
        average_duration_ms: z.number().nullable().describe('Mean run time of completed tasks.'),
      }),
    ),
    average_duration_ms: z.number().nullable().describe('Mean run time of all completed tasks.'),
  })
  .meta({ id: 'TaskStats' });
export type TaskStats = z.infer<typeof TaskStats>;

/** A task's payload or result; null when absent or unreadable. */
const parse = (text: string | null): unknown => parseJsonColumn<unknown>(text, null);

export function taskView(row: TaskRow): TaskView {
  return {
    id: row.id,
    task_id: row.id,
    task_type: row.type,
    status: row.status,
    progress: { current: row.progress_current, total: row.progress_total, message: row.progress_message ?? '' },
    library_id: row.library_id,
    target_id: row.target_id,
    payload: parse(row.payload) ?? {},
    result: parse(row.result),
    error: row.error,
    attempts: row.attempts,
    cancel_requested: row.cancel_requested === 1,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    updated_at: row.updated_at,
  };
}
