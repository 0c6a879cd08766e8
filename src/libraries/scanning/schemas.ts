import { z } from 'zod';
import { ScanMode } from '../schemas.js';

export const ScanQuery = z.object({
  // A fresh enum: a named ($ref) schema inside query parameters breaks the OpenAPI generator.
  mode: z.enum(ScanMode.options).optional().describe("Default: the library's scanning_config.default_mode (normal unless set)."),
});

export const ScanCountersView = z
  .object({
    files_discovered: z.number().int(),
    files_processed: z.number().int(),
    series_created: z.number().int(),
    books_added: z.number().int(),
    books_updated: z.number().int(),
    books_deleted: z.number().int(),
    books_restored: z.number().int(),
    books_unchanged: z
      .number()
      .int()
      .describe(
        'Books found as they were: skipped by size and modification time (normal scan), or read again with nothing to update (deep scan).',
      ),
    errors: z.number().int().describe('Files that could not be read (recorded as books with an analysis error).'),
  })
  .meta({ id: 'ScanCounters' });

export const ScanState = z.enum(['idle', 'pending', 'running', 'completed', 'failed', 'cancelled']);

export const ScanStatusView = z
  .object({
    library_id: z.uuid(),
    state: ScanState.describe('`idle` when the library was never scanned; otherwise the status of its latest scan task.'),
    task_id: z.uuid().nullable(),
    mode: ScanMode.nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    error: z.string().nullable(),
    counters: ScanCountersView,
    progress: z.object({ current: z.number().int(), total: z.number().int(), message: z.string() }),
  })
  .meta({ id: 'ScanStatus' });
export type ScanStatusView = z.infer<typeof ScanStatusView>;
