import { z } from 'zod';

const Candidate = z.object({ source: z.string(), value: z.string() });

export const FieldExplanation = z
  .object({
    field: z.enum(['title', 'number', 'series']),
    value: z.string().nullable(),
    source: z.string().nullable().describe('`comicinfo`, `opf`, `pdf`, `filename`, `folder`.'),
    candidates: z.array(Candidate).describe('The value kept, then what the file name and the folder say.'),
  })
  .meta({ id: 'FieldExplanation' });
export type FieldExplanation = z.infer<typeof FieldExplanation>;

export const SeriesExplanation = z
  .object({
    id: z.string(),
    name: z.string(),
    path: z.string(),
    source: z.string(),
    rule: z
      .enum(['stated', 'filename_agreement', 'folder'])
      .describe('`stated`: the name most books state; `filename_agreement`: file names agree; `folder`: neither.'),
    books: z.number().int(),
    votes: z.array(z.object({ value: z.string(), source: z.string(), count: z.number().int() })),
    sentence: z.string(),
  })
  .meta({ id: 'SeriesExplanation' });
export type SeriesExplanation = z.infer<typeof SeriesExplanation>;

export const Explanation = z
  .object({
    library_id: z.string(),
    path: z.string().describe('Relative to the library folder.'),
    book_id: z.string().nullable(),
    status: z
      .enum(['book', 'deleted', 'hidden', 'excluded', 'unsupported', 'waiting', 'not_scanned', 'missing', 'folder', 'outside'])
      .describe(
        '`book`: a present book; `deleted`: a soft-deleted book; `hidden`, `excluded`, `unsupported`: not part of the library by its rules; `waiting`: watching waits for the quiet period or for the file to be written; `not_scanned`: there, not scanned yet; `missing`: neither file nor book; `folder`; `outside`: reached through a symbolic link that leads out of the library folder or to a folder, which scans do not follow (nothing of its target is told).',
      ),
    sentences: z.array(z.string()).describe('The explanation in sentences, in order.'),
    rule: z
      .object({
        rule: z.enum(['hidden', 'excluded', 'unsupported_extension']),
        glob: z.string().optional(),
        part: z.string().optional(),
        extension: z.string().optional(),
      })
      .nullable(),
    file: z.object({ exists: z.boolean(), is_folder: z.boolean(), size: z.number().nullable(), mtime_ms: z.number().nullable() }),
    watching: z.object({ state: z.string().nullable(), pending: z.boolean(), being_written: z.boolean() }),
    last_decision: z
      .object({
        outcome: z.string().describe('`added`, `updated`, `restored`, `moved`, `moved_away`, `failed`, `deleted`.'),
        reason: z.string(),
        decided_at: z.string(),
        mode: z.string(),
        targeted: z.boolean(),
        moved_from: z.string().nullable(),
        moved_to: z.string().nullable(),
        error: z.string().nullable(),
        previous: z.object({ size: z.number(), mtime_ms: z.number(), hash: z.string().nullable() }).nullable(),
      })
      .nullable(),
    fields: z.array(FieldExplanation),
    series: SeriesExplanation.nullable(),
    duplicates: z.array(z.object({ book_id: z.string(), path: z.string(), library_id: z.string() })),
    history: z
      .array(z.object({ path: z.string(), outcome: z.string(), reason: z.string().nullable(), decided_at: z.string() }))
      .describe('The last recorded changes of this file (or book), newest first.'),
  })
  .meta({ id: 'Explanation' });
export type Explanation = z.infer<typeof Explanation>;
