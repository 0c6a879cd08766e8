import { z } from 'zod';
import { Uuid } from '../../http/params.js';
import { PaginationQuery } from '../../http/pagination.js';
import { localize } from '../../i18n/messages.js';
import type { Language } from '../../i18n/languages.js';
import type { InboxFolderRow, InboxItemRow } from './repository.js';

const TEMPLATE_DOC =
  'Where a filed book goes inside the library: `{field}` for a value (`series`, `title`, `number`, `volume`, `year`, `publisher`, `ext`, `original`), `{field:03}` zero-padded, `[…]` left out when a field inside has no value, `/` between folders (docs/inbox.md).';

export const InboxFolderInput = z.strictObject({
  path: z.string().min(1).max(4096).describe('Absolute folder on the server, outside every library (and no library inside it).'),
  library_id: Uuid.describe('The library its files are filed into.'),
  template: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe(`${TEMPLATE_DOC} Default \`{series}/{series}[ v{volume:02}][ #{number:03}][ ({year})].{ext}\`.`),
  auto_file: z
    .boolean()
    .optional()
    .describe('File without review when the match is certain (score at or above the setting `metadata_auto_threshold`). Default false.'),
});

export const InboxFolderView = z
  .object({
    id: z.uuid(),
    path: z.string().nullable().describe('Null for callers who do not manage libraries (libraries-write).'),
    library_id: z.uuid(),
    template: z.string(),
    auto_file: z.boolean(),
    watch: z.object({
      state: z
        .enum(['watching', 'missing', 'failed', 'elsewhere', 'stopped'])
        .describe(
          '`watching`: this instance looks at it; `missing`: the folder is gone; `failed`: events do not arrive (it is still looked at every check); `elsewhere`: another instance watches it; `stopped`: not started.',
        ),
      being_written: z.array(z.string()).describe('Files (relative to the folder) whose size or time still moves: taken once they stop.'),
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'InboxFolder' });

export const TemplatePreviewRequest = z
  .strictObject({ template: z.string().min(1).max(500).describe(TEMPLATE_DOC) })
  .meta({ id: 'InboxTemplatePreviewRequest' });

export const TemplatePreview = z
  .object({
    examples: z.array(
      z.object({
        values: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
        path: z.string().nullable(),
        problem: z.string().nullable().describe('Why the template cannot name this example (a field it needs is missing).'),
      }),
    ),
  })
  .meta({ id: 'InboxTemplatePreview' });

export const ITEM_STATUSES = ['analysing', 'review', 'duplicate', 'clash', 'damaged', 'filing', 'failed', 'filed', 'rejected'] as const;

export const InboxItemView = z
  .object({
    id: z.uuid(),
    folder_id: z.uuid(),
    library_id: z.uuid(),
    file_name: z.string(),
    size: z.number().int(),
    format: z.string().nullable(),
    status: z
      .enum(ITEM_STATUSES)
      .describe(
        "`review`: waiting for a person; `duplicate`: the same file (`duplicate_of`), or the same number in the series, is already in a library; `clash`: a file of the proposed name exists; `damaged`: unreadable or unsupported (`problem`); `filing`: being moved; `failed`: the move failed (`problem`), it stays in the inbox; `filed`; `rejected`: moved to the folder's `rejected` subfolder.",
      ),
    proposed_series: z.string().nullable().describe('The series it is filed into: an existing one (`series_id`) or a new one.'),
    series_id: z.uuid().nullable().describe('The existing series it matches; null proposes a new series.'),
    number: z.string().nullable(),
    volume: z.number().int().nullable(),
    year: z.number().int().nullable(),
    title: z.string().nullable(),
    proposed_path: z
      .string()
      .nullable()
      .describe("Relative to the library's folder; null when the template cannot name it (a field is missing)."),
    score: z
      .number()
      .describe('0–1: how sure the match is. At or above `metadata_auto_threshold`, a folder with `auto_file` files it without review.'),
    reasons: z.array(z.string()).describe('Why it is proposed so, in sentences (the language of the request).'),
    metadata: z
      .object({
        title: z.string().nullable(),
        series: z.string().nullable(),
        number: z.string().nullable(),
        volume: z.number().nullable(),
        year: z.number().nullable(),
        publisher: z.string().nullable(),
        authors: z.array(z.string()),
        page_count: z.number().int(),
        format: z.string(),
      })
      .partial()
      .describe('What the analysis found in the file (empty for a damaged one).'),
    duplicate_of: z.uuid().nullable().describe('The book already in a library with the same content, or the same series and number.'),
    moved_from: z
      .uuid()
      .nullable()
      .describe("A book whose file is gone and had this content: its readers' progress follows to the filed book."),
    problem: z.string().nullable(),
    edited: z.boolean().describe('A person changed the proposal.'),
    book_id: z.uuid().nullable().describe('Once filed and scanned: the book it became.'),
    filed_path: z.string().nullable().describe('Filed: where it went in the library; rejected: where it is in the inbox folder.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'InboxItem' });

export const InboxItemsQuery = PaginationQuery.extend({
  status: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const list = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = list.find((s) => !(ITEM_STATUSES as readonly string[]).includes(s));
      if (bad) {
        ctx.addIssue({ code: 'custom', message: `unknown status ${bad}` });
        return z.NEVER;
      }
      return list;
    })
    .describe('Comma-separated statuses; default every status but `filed` and `rejected`.'),
  folder_id: Uuid.optional(),
});

export const InboxItemChanges = z.strictObject({
  series_id: Uuid.nullable().optional().describe('File into this series of the library (null: a new series named `series_name`).'),
  series_name: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('The series; matched to an existing one of that name unless `series_id` is given.'),
  number: z.string().max(20).nullable().optional(),
  volume: z.number().int().min(0).max(100_000).nullable().optional(),
  year: z.number().int().min(0).max(9999).nullable().optional(),
  title: z.string().max(1000).nullable().optional(),
  proposed_path: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      "The path inside the library, as a person wants it (keeping the file's extension); without it the template names the changed proposal.",
    ),
});

export const DuplicateChoice = z
  .enum(['keep_both', 'replace'])
  .describe(
    'For a duplicate: `keep_both` files it beside the other; `replace` puts it in the place of the older book of the same library (an upgrade: same book, progress kept; the older file goes to the rejected folder).',
  );

export const AcceptRequest = z.strictObject({ duplicate: DuplicateChoice.optional() }).meta({ id: 'InboxAcceptRequest' });

export const AcceptManyRequest = z.strictObject({ ids: z.array(Uuid).min(1).max(500), duplicate: DuplicateChoice.optional() });

export const AcceptManyResult = z
  .object({
    data: z.array(
      z.object({
        id: z.uuid(),
        item: InboxItemView.nullable(),
        error: z.object({ error: z.string(), message: z.string(), details: z.unknown() }).nullable(),
      }),
    ),
  })
  .meta({ id: 'InboxAcceptManyResult' });

type ItemView = z.infer<typeof InboxItemView>;

export function folderView(
  row: InboxFolderRow,
  watch: { state: string; being_written: string[] },
  showPath: boolean,
): z.infer<typeof InboxFolderView> {
  return {
    id: row.id,
    path: showPath ? row.path : null,
    library_id: row.library_id,
    template: row.template,
    auto_file: row.auto_file === 1,
    watch: (showPath ? watch : { state: watch.state, being_written: [] }) as z.infer<typeof InboxFolderView>['watch'],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function itemView(row: InboxItemRow, language: Language): ItemView {
  return {
    id: row.id,
    folder_id: row.folder_id,
    library_id: row.library_id,
    file_name: row.file_name,
    size: row.size,
    format: row.format,
    status: row.status as ItemView['status'],
    proposed_series: row.series_name,
    series_id: row.series_id,
    number: row.number,
    volume: row.volume,
    year: row.year,
    title: row.title,
    proposed_path: row.proposed_path,
    score: row.score,
    reasons: (JSON.parse(row.reasons) as string[]).map((r) => localize(language, r)),
    metadata: JSON.parse(row.metadata) as ItemView['metadata'],
    duplicate_of: row.duplicate_of,
    moved_from: row.moved_from,
    problem: row.problem,
    edited: row.edited > 0,
    book_id: row.book_id,
    filed_path: row.filed_path,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
