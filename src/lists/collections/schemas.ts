import { z } from 'zod';
import { PaginationQuery } from '../../http/pagination.js';
import { Uuid } from '../../http/params.js';

/** Most series one request may name (a collection may grow past it, a request at a time). */
export const MAX_SERIES_PER_REQUEST = 5000;

/** Renames camelCase keys of a request object to snake_case (requests accept both spellings; snake_case wins). */
function snakeCaseKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake !== key && Object.prototype.hasOwnProperty.call(value, snake)) continue;
    out[snake] = v;
  }
  return out;
}
const withSnakeKeys = <T extends z.ZodType>(schema: T) => z.preprocess(snakeCaseKeys, schema);

const name = z.string().trim().min(1).max(200).describe('Unique (ignoring case) among the shared collections, and among one owner’s.');
const summary = z.string().max(10_000);
const seriesIds = z
  .array(Uuid)
  .max(MAX_SERIES_PER_REQUEST)
  .describe(
    'Series ids, in the order wanted; repeats are dropped. Ids of series that do not exist or the caller cannot see are a 400 naming them (`details.series_ids`).',
  );

export const CollectionView = z
  .object({
    id: z.string(),
    name: z.string(),
    summary: z.string(),
    ordered: z.boolean().describe('true: the series keep the order given; false: they sort by series name.'),
    shared: z.boolean().describe("true: every user sees it (each only the series they may see); false: its owner's alone."),
    owner_user_id: z.string().nullable().describe('The owner of a private collection; null for a shared one.'),
    series_count: z.number().int().describe('The series of the collection the caller may see.'),
    series_ids: z.array(z.string()).describe('The series of the collection the caller may see, in the collection’s order.'),
    cover_series_id: z.string().nullable().describe('The series chosen for the cover (null: none chosen, or one the caller may not see).'),
    thumbnail_series_id: z
      .string()
      .nullable()
      .describe(
        "The series whose cover is the collection's for the caller: the chosen one, else the first series; null when it shows none.",
      ),
    source: z.string().describe('`user` (made through the API) or `comicinfo` (made by scans from ComicInfo SeriesGroup).'),
    edited: z.boolean().describe('A person changed this collection made by scans (scans leave it alone since).'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Collection' });
export type CollectionView = z.infer<typeof CollectionView>;

export const CollectionListQuery = PaginationQuery.extend({
  search: z.string().max(200).optional().describe('Only collections whose name contains this text (ignoring case).'),
  library_id: Uuid.optional().describe('Only collections holding a series of this library (one the caller may see).'),
  libraryId: Uuid.optional().describe('Alias of library_id.'),
});

export const CollectionCreate = withSnakeKeys(
  z.strictObject({
    name,
    summary: summary.default(''),
    ordered: z.boolean().default(false).describe('true: the series keep the order given; false (default): they sort by name.'),
    shared: z.boolean().default(false).describe("true: a shared collection (needs collections-write); false (default): the caller's own."),
    series_ids: seriesIds.default([]),
  }),
).meta({ id: 'CollectionCreate' });
export type CollectionCreate = z.infer<typeof CollectionCreate>;

export const CollectionUpdate = withSnakeKeys(
  z.strictObject({
    name: name.optional(),
    summary: summary.optional(),
    ordered: z.boolean().optional(),
    shared: z
      .boolean()
      .optional()
      .describe('true makes it shared, false makes a shared one the caller’s own (either needs collections-write).'),
    cover_series_id: Uuid.nullable().optional().describe('A series of the collection for its cover; null goes back to the first series.'),
    series_ids: seriesIds.optional().describe('Replaces the series the caller sees (series it may not see stay where they are).'),
  }),
).meta({ id: 'CollectionUpdate' });
export type CollectionUpdate = z.infer<typeof CollectionUpdate>;

export const CollectionSeriesAdd = withSnakeKeys(
  z.strictObject({
    series_ids: seriesIds.min(1),
    position: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        '0-based place among the series the caller sees to insert them at; default the end. Series already there stay where they are.',
      ),
  }),
).meta({ id: 'CollectionSeriesAdd' });
export type CollectionSeriesAdd = z.infer<typeof CollectionSeriesAdd>;

export const CollectionSeriesOrder = withSnakeKeys(
  z.strictObject({
    series_ids: z
      .array(Uuid)
      .max(MAX_SERIES_PER_REQUEST)
      .describe('Every series of the collection the caller sees, once each, in the new order.'),
  }),
).meta({ id: 'CollectionSeriesOrder' });
export type CollectionSeriesOrder = z.infer<typeof CollectionSeriesOrder>;

export const CollectionSeriesParams = z.object({ id: Uuid, series_id: Uuid });
