import { z } from 'zod';
import { Uuid } from '../../http/params.js';
import type { MetadataChange } from './service.js';
import { BOOK_FIELD_DEFS, BOOK_FIELDS, SERIES_FIELD_DEFS, SERIES_FIELDS } from './fields.js';

const LOCKS_DOC =
  'Field → locked. A field set by this request is locked (scans keep it) unless this says false; `false` alone unlocks a ' +
  "field and gives it the files' value back at once; `true` alone locks the current value.";

function fieldSchemas<F extends string>(defs: Record<F, { schema: z.ZodType }>) {
  return Object.fromEntries(Object.entries(defs).map(([f, d]) => [f, (d as { schema: z.ZodType }).schema.optional()])) as Record<
    F,
    z.ZodOptional<z.ZodType>
  >;
}

function locksSchema(fields: readonly string[], id: string) {
  return z
    .object(Object.fromEntries(fields.map((f) => [f, z.boolean().optional()])))
    .strict()
    .describe(LOCKS_DOC)
    .meta({ id });
}

const SeriesLocksUpdate = locksSchema(SERIES_FIELDS, 'SeriesLocksUpdate');
const BookLocksUpdate = locksSchema(BOOK_FIELDS, 'BookLocksUpdate');

export const SeriesMetadataChanges = z
  .object({ ...fieldSchemas(SERIES_FIELD_DEFS), locks: SeriesLocksUpdate.optional() })
  .strict()
  .meta({ id: 'SeriesMetadataChanges' });

export const SeriesUpdate = SeriesMetadataChanges.extend({
  sharing_labels: z
    .array(z.string().trim().min(1).max(100))
    .max(100)
    .optional()
    .describe(
      'Replaces the sharing labels; compared case-insensitively, stored trimmed and lower-cased, duplicates dropped. A change holds on ' +
        'the next request of every user whose labels_allow or labels_exclude names one of them.',
    ),
})
  .strict()
  .meta({ id: 'SeriesUpdate' });
export type SeriesUpdate = z.infer<typeof SeriesUpdate>;

export const BookUpdate = z
  .object({ ...fieldSchemas(BOOK_FIELD_DEFS), locks: BookLocksUpdate.optional() })
  .strict()
  .meta({ id: 'BookUpdate' });
export type BookUpdate = z.infer<typeof BookUpdate>;

const Words = z.array(z.string().trim().min(1).max(200)).max(500);

export const SeriesBulkUpdate = z
  .object({
    ids: z.array(Uuid).min(1).max(5000).describe('The series to change (all visible to the caller, else 404 and nothing changes).'),
    changes: SeriesMetadataChanges.default({}),
    add: z.object({ genres: Words, tags: Words }).partial().strict().optional().describe("Words added to each series' list (kept once)."),
    remove: z.object({ genres: Words, tags: Words }).partial().strict().optional().describe("Words removed from each series' list."),
  })
  .strict()
  .meta({ id: 'SeriesBulkUpdate' });

export const BookBulkUpdate = z
  .object({
    ids: z.array(Uuid).min(1).max(5000).describe('The books to change (all visible to the caller, else 404 and nothing changes).'),
    changes: BookUpdate.default({}),
    add: z.object({ tags: Words }).partial().strict().optional(),
    remove: z.object({ tags: Words }).partial().strict().optional(),
  })
  .strict()
  .meta({ id: 'BookBulkUpdate' });

export const WriteBackReport = z
  .object({
    task_ids: z
      .array(z.string())
      .describe(
        "The `write_comicinfo` tasks writing the files (one per library). Each one's `result` says, when it is done, which books were " +
          '`written` and which were `not_written`, with a reason (a read-only file or folder, a file changed since the last scan…).',
      ),
    queued: z.number().int().describe('CBZ files queued for writing.'),
    not_written: z
      .array(z.object({ book_id: z.string(), reason: z.string() }))
      .describe('Books the edit reaches whose files are not written: only CBZ files are (not CBR, PDF or EPUB).'),
  })
  .nullable()
  .describe(
    "Writing the edit into the files as ComicInfo.xml (libraries with `scanning_config.write_comicinfo` on; the catalog's edit is " +
      'made either way). Null when no library of the edit writes back, or no edited field has a place in ComicInfo.xml.',
  )
  .meta({ id: 'WriteBackReport' });

export const BulkResult = z
  .object({
    group_id: z.string().describe('The history group of this change: undo any of its entries to undo it all.'),
    updated: z.number().int().describe('Entities whose values or locks changed.'),
    write_back: WriteBackReport,
  })
  .meta({ id: 'MetadataBulkResult' });

export const HistoryEntryView = z
  .object({
    id: z.string(),
    group_id: z.string().describe('The request (or scan write, or undo) the entry belongs to.'),
    entity_type: z.enum(['series', 'book']),
    entity_id: z.string(),
    field: z.string(),
    before: z.unknown(),
    after: z.unknown(),
    before_locked: z.boolean(),
    after_locked: z.boolean(),
    source: z.enum(['person', 'scan', 'provider']).describe('`provider`: applied by identification from an online database.'),
    source_detail: z.string().nullable().describe('For `provider` entries, the entry in words ("AniList 21").'),
    user_id: z.string().nullable(),
    username: z.string().nullable(),
    created_at: z.string(),
    undone_at: z.string().nullable(),
  })
  .meta({ id: 'MetadataHistoryEntry' });

export const UndoQuery = z.object({
  only_entry: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: undo this entry alone; default: the whole group (the request that made it, a bulk change as a whole).'),
});

export const UndoResult = z
  .object({
    group_id: z.string().describe('The history group the undo recorded.'),
    undone: z.array(HistoryEntryView),
    write_back: WriteBackReport,
  })
  .meta({ id: 'MetadataUndoResult' });

export const LOCKS =
  'Editing a field locks it (scans keep it) unless `locks` says false for it; `locks: {field: false}` alone gives the field the ' +
  "files' value back at once, with no rescan. Every change is recorded in the history (docs/metadata-editing.md). In libraries with " +
  '`scanning_config.write_comicinfo` on, the edited fields are also written into the CBZ files as ComicInfo.xml (`write_back`).';

/** Splits a request body into its values and its locks. */
export function changeOf(body: Record<string, unknown> & { locks?: Record<string, boolean | undefined> }): MetadataChange {
  const { locks, ...set } = body;
  return { set, locks };
}
