import { z } from 'zod';

/** A scan's counters, as scan status answers and scan events carry them (ScanCounters in types.ts). */
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
