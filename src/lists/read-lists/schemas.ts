import { z } from 'zod';
import { PaginationQuery } from '../../http/pagination.js';
import { Uuid } from '../../http/params.js';
import { BookView } from '../../catalog/index.js';

export const MAX_LIST_BOOKS = 10_000;

const Name = z.string().trim().min(1, 'must not be empty').max(200);
const Summary = z.string().max(10_000);
const BookIds = z.array(Uuid).max(MAX_LIST_BOOKS);

export const ReadListView = z
  .object({
    id: z.string(),
    name: z.string(),
    summary: z.string(),
    shared: z
      .boolean()
      .describe("Shared lists are everyone's to see (each sees the books they may see); private ones their owner's alone."),
    source: z
      .enum(['user', 'comicinfo'])
      .describe('`user`: made through the API (or a CBL import); `comicinfo`: made by scans from StoryArc.'),
    edited: z.boolean().describe('A scan-made list a person changed since (scans no longer rewrite it).'),
    cover_book_id: z
      .string()
      .nullable()
      .describe("The book whose cover is the list's: the chosen one if the caller sees it, else the first book the caller sees."),
    book_count: z.number().int().describe('Books of the list the caller sees.'),
    missing_count: z
      .number()
      .int()
      .describe('Entries waiting for a book (from a CBL import); shown to the owner of the list and to unrestricted users only.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ReadList' });
export type ReadListView = z.infer<typeof ReadListView>;

export const WantedEntry = z
  .object({
    series: z.string().nullable(),
    number: z.string().nullable(),
    volume: z.string().nullable().describe("The series' start year, as CBL files write it."),
    year: z.string().nullable(),
    cv_series: z.string().nullable().describe('ComicVine series id.'),
    cv_issue: z.string().nullable().describe('ComicVine issue id.'),
  })
  .meta({ id: 'ReadListWantedEntry' });

export const ReadListItemView = z
  .object({
    id: z.string().describe('Id of the entry (PATCH/DELETE /read-lists/{id}/items/{item_id}).'),
    position: z.number().int().describe('0-based, among the entries the caller sees.'),
    book_id: z.string().nullable().describe('null: no book matched the entry yet.'),
    book: BookView.nullable(),
    wanted: WantedEntry.nullable().describe('What a CBL entry asked for; null for books added by id.'),
  })
  .meta({ id: 'ReadListItem' });
export type ReadListItemView = z.infer<typeof ReadListItemView>;

export const ReadListDetail = ReadListView.extend({ items: z.array(ReadListItemView) }).meta({ id: 'ReadListDetail' });
export type ReadListDetail = z.infer<typeof ReadListDetail>;

export const ReadListQuery = PaginationQuery.extend({
  search: z.string().max(200).optional().describe('Part of the name, case-insensitive.'),
});

export const ReadListCreate = z
  .object({
    name: Name,
    book_ids: BookIds.default([]).describe('Books in reading order; a book listed twice is kept once.'),
    summary: Summary.optional(),
    shared: z.boolean().optional().describe('A shared list (needs read-lists-write). Default: private.'),
  })
  .meta({ id: 'ReadListCreate' });
export type ReadListCreate = z.infer<typeof ReadListCreate>;

export const ReadListUpdate = z
  .object({
    name: Name.optional(),
    summary: Summary.optional(),
    shared: z.boolean().optional().describe('Share or unshare (needs read-lists-write); an unshared list becomes the caller’s.'),
    cover_book_id: Uuid.nullable().optional().describe('A book of the list; null: the first book.'),
  })
  .meta({ id: 'ReadListUpdate' });
export type ReadListUpdate = z.infer<typeof ReadListUpdate>;

export const ReadListBooksAdd = z
  .object({
    book_ids: BookIds.min(1),
    position: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Insert before the entry at this position (of the entries the caller sees); default: at the end.'),
  })
  .meta({ id: 'ReadListBooksAdd' });

export const ReadListOrder = z
  .object({ book_ids: BookIds.describe('Every book of the list the caller sees, each once, in the new order.') })
  .meta({ id: 'ReadListOrder' });

export const ReadListItemUpdate = z
  .object({ book_id: Uuid.describe('The book the entry stands for (resolves an ambiguous or missing CBL entry).') })
  .meta({ id: 'ReadListItemUpdate' });

export const ItemParams = z.object({ id: Uuid, item_id: Uuid });
export const BookParams = z.object({ id: Uuid, book_id: Uuid });

export const ReadListProgress = z
  .object({
    total: z.number().int().describe('Books of the list the caller sees.'),
    read: z.number().int(),
    in_progress: z.number().int(),
    unread: z.number().int(),
    next_book_id: z.string().nullable().describe('The first book in list order the caller has not finished; null when all are.'),
    next_book: BookView.nullable(),
  })
  .meta({ id: 'ReadListProgress' });
export type ReadListProgress = z.infer<typeof ReadListProgress>;

const Flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

export const ImportQuery = z.object({
  dry_run: Flag.describe('Only report the matches; nothing is created. Also accepted as a form field.'),
});

export const CblCandidate = z
  .object({ book_id: z.string(), series_name: z.string(), number: z.string().nullable(), year: z.number().int().nullable() })
  .meta({ id: 'CblCandidate' });

export const CblEntryReport = z
  .object({
    index: z.number().int().describe('0-based position of the entry in the file (the key of `resolutions`).'),
    series: z.string(),
    number: z.string().nullable(),
    volume: z.string().nullable(),
    year: z.string().nullable(),
    status: z.enum(['matched', 'ambiguous', 'missing']),
    book_id: z.string().optional(),
    resolved: z.boolean().optional().describe('The book came from `resolutions`.'),
    duplicate: z.boolean().optional().describe('An earlier entry has the same book: the list holds it once.'),
    candidates: z.array(CblCandidate).optional().describe('Of an ambiguous entry: the books it could be.'),
  })
  .meta({ id: 'CblEntryReport' });
export type CblEntryReport = z.infer<typeof CblEntryReport>;

export const ImportReport = z
  .object({
    dry_run: z.boolean(),
    name: z.string(),
    matched: z.number().int(),
    ambiguous: z.number().int(),
    missing: z.number().int(),
    entries: z.array(CblEntryReport),
    read_list: ReadListDetail.nullable().describe('The list created (null on a dry run).'),
  })
  .meta({ id: 'CblImportReport' });
export type ImportReport = z.infer<typeof ImportReport>;

/** The form fields of an import beside the file (all optional). */
export const ImportFields = z.object({
  dry_run: Flag,
  name: Name.optional(),
  summary: Summary.optional(),
  shared: Flag,
  resolutions: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'resolutions must be JSON: {"<entry index>": "<book id>"}' });
        return z.NEVER;
      }
      const checked = z.record(z.string().regex(/^\d+$/, 'keys are entry indexes'), Uuid).safeParse(parsed);
      if (!checked.success) {
        ctx.addIssue({
          code: 'custom',
          message: `resolutions must map entry indexes to book ids (${checked.error.issues[0]?.message ?? ''})`,
        });
        return z.NEVER;
      }
      return checked.data;
    }),
});
export type ImportFields = z.infer<typeof ImportFields>;
