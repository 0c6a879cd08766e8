import { z } from 'zod';

const Totals = { pages_read: z.number().int(), reading_seconds: z.number().int(), books_completed: z.number().int() };

export const ReadingStats = z
  .object({
    books_completed: z.number().int().describe('Finished read-throughs (a book read twice counts twice).'),
    pages_read: z.number().int().describe('Pages advanced through progress updates.'),
    reading_seconds: z.number().int().describe('Time between consecutive progress updates of a book, pauses over 10 minutes excluded.'),
    active_days: z.number().int(),
    current_streak_days: z.number().int().describe('Consecutive UTC days with activity ending today or yesterday.'),
    longest_streak_days: z.number().int(),
    days: z.array(z.object({ date: z.string(), ...Totals })).describe('One entry per UTC day of the window, oldest first.'),
    devices: z.array(
      z.object({
        device_id: z.string(),
        kind: z.enum(['api_key', 'header', 'user_agent']).or(z.string()),
        name: z.string(),
        last_seen_at: z.string(),
        ...Totals,
      }),
    ),
    top_series: z.array(z.object({ series_id: z.string(), name: z.string(), ...Totals })).describe('Up to 10 series still in the library.'),
    removed_from_library: z
      .object({
        label: z.literal('Removed from library'),
        ...Totals,
        books: z.array(z.object({ book_id: z.string(), title: z.string(), series_name: z.string() })),
      })
      .nullable()
      .describe('Activity on books that were permanently removed (purged); null when there is none.'),
  })
  .meta({ id: 'ReadingStats' });
export type ReadingStats = z.infer<typeof ReadingStats>;

export const ReadingStatsQuery = z.object({
  days: z.coerce.number().int().min(1).max(3660).default(30).describe('Length of the per-day window ending today (UTC). Default 30.'),
});
