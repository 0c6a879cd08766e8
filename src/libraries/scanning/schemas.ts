import { z } from 'zod';
import { ScanCountersView } from '../../events/schemas.js';
import { ScanMode } from '../schemas.js';

export const ScanQuery = z.object({
  // A fresh enum: a named ($ref) schema inside query parameters breaks the OpenAPI generator.
  mode: z.enum(ScanMode.options).optional().describe("Default: the library's scanning_config.default_mode (normal unless set)."),
});

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
