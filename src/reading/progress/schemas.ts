import { z } from 'zod';

/** snake_case is the API's spelling; camelCase is accepted too (a snake_case key wins when both are sent). */
export const ProgressUpdate = z
  .preprocess(
    (raw) => {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
      const body = raw as Record<string, unknown>;
      return {
        current_page: body.current_page ?? body.currentPage,
        is_completed: body.is_completed ?? body.isCompleted,
        recorded_at: body.recorded_at ?? body.recordedAt,
        entry_id: body.entry_id ?? body.entryId,
      };
    },
    z.object({
      current_page: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('1-based page the reader is on; must be within 1..page_count. Alias currentPage.'),
      is_completed: z
        .boolean()
        .optional()
        .describe(
          'true finishes the book (current_page becomes the last page); omitted means "completed when current_page is the last page". Alias isCompleted.',
        ),
      recorded_at: z.iso
        .datetime({ offset: true })
        .optional()
        .describe(
          'Optional: when the client recorded this position (RFC 3339), for a device that was offline. A position recorded before the current ' +
            "one's time is kept in the history (applied false) but does not change the position; a later one (the client says it is newer) does. " +
            'Omitted: the time the server receives it, so the write becomes the position. A time in the future counts as now. Alias recordedAt.',
        ),
      entry_id: z
        .uuid()
        .optional()
        .describe(
          "Optional: the client's own id of this position (a queued one sent again after a lost answer): a position whose id this " +
            'user already sent is not recorded again, and the answer is the current progress. Alias entryId.',
        ),
    }),
  )
  .meta({ id: 'ProgressUpdate' });
export type ProgressUpdate = { current_page?: number; is_completed?: boolean; recorded_at?: string; entry_id?: string };

export const ProgressView = z
  .object({
    book_id: z.string(),
    user_id: z.string(),
    current_page: z.number().int(),
    page_count: z.number().int(),
    is_completed: z.boolean(),
    progress: z.number().describe('Fraction read, 0..1 (current_page / page_count; 1 when completed).'),
    started_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    device_id: z.string().nullable().describe('Device of the last update: `key:<api key id>`, `hdr:<X-Device-Id>` or `ua:<hash>`.'),
  })
  .meta({ id: 'Progress' });
export type ProgressView = z.infer<typeof ProgressView>;

export const ProgressListItem = ProgressView.extend({
  book: z.object({
    id: z.string(),
    title: z.string(),
    number: z.string().nullable(),
    series_id: z.string(),
    series_name: z.string(),
    library_id: z.string(),
  }),
}).meta({ id: 'ProgressWithBook' });
export type ProgressListItem = z.infer<typeof ProgressListItem>;

export const ProgressEventView = z
  .object({
    id: z.string(),
    book_id: z.string(),
    device_id: z.string().describe('Device of the write, as in Progress.device_id.'),
    protocol: z
      .string()
      .describe(
        'Who wrote it: `colophon` (this API and the web app), `koreader` (KOReader sync), `komga` (the Komga API: Mihon, Komga clients), ' +
          '`opds-pse` (a page read through OPDS 1.2 page streaming), `opds2` (OPDS 2.0 Progression or page streaming), `migrated` (progress from before the history).',
      ),
    position: z
      .record(z.string(), z.unknown())
      .describe(
        'The position as the client sent it (a page, a KOReader xpointer and percentage...); `{cleared: true}` for a cleared progress.',
      ),
    page: z.number().int().describe('Normalised 1-based page (0 for a cleared progress).'),
    percentage: z.number().describe('Normalised share read, 0..1.'),
    is_completed: z.boolean(),
    received_at: z.string().describe('When the server received it; the latest applied event is the current position.'),
    client_at: z
      .string()
      .nullable()
      .describe(
        'When the client says it recorded the position (`recorded_at`, kosync `timestamp`, OPDS `modified`); null when it did not say.',
      ),
    applied: z
      .boolean()
      .describe('false for a position older than the current one when it arrived (a device that was offline): history only, restorable.'),
  })
  .meta({ id: 'ProgressEvent' });
export type ProgressEventView = z.infer<typeof ProgressEventView>;

export const ProgressRestore = z
  .object({ event_id: z.string().min(1).describe("An id from the book's progress history.") })
  .meta({ id: 'ProgressRestore' });
export type ProgressRestore = z.infer<typeof ProgressRestore>;
