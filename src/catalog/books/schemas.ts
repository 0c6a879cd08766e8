import { z } from 'zod';
import { PaginationQuery } from '../../http/pagination.js';
import { Uuid } from '../../http/params.js';
import { METADATA_SOURCES } from '../../media/metadata/metadata-types.js';
import { filterBodySchema, type FieldKind } from '../search/conditions.js';

/** How a scan names a series; shown on the series name and the books' series source in the OpenAPI description. */
export const SERIES_NAME_RULE =
  "A folder's series name is what its books agree on: each book counts with its own highest-priority series value " +
  '(ComicInfo.xml > EPUB OPF > PDF properties > file name). A name the files state (ComicInfo Series, OPF/calibre series or ' +
  'belongs-to-collection, PDF properties) wins over any guess from a file name: the stated value most books hold, a tie going to ' +
  "the higher source, then to the value equal to the folder's name. With no stated name, a file-name parse names the series only " +
  'when at least two books and more than half of the books parse to it. Otherwise the series is named after its folder (a loose ' +
  'file in the library root: its own parse, else the file name without extension). Rescans apply the same rule, and a series ' +
  'named by an older rule is named again by the next scan.';

export const BOOK_SORT_FIELDS = ['title', 'number', 'file_size', 'page_count', 'created_at', 'modified_at'] as const;
export type BookSortField = (typeof BOOK_SORT_FIELDS)[number];

export const BOOK_FILTER_FIELDS = {
  libraryId: 'id',
  seriesId: 'id',
  genre: 'list',
  tag: 'list',
  title: 'text',
  readStatus: 'readStatus',
  hasError: 'boolean',
  releaseYear: 'year',
  author: 'author',
  readListId: 'id',
} as const satisfies Record<string, FieldKind>;
export type BookFilterField = keyof typeof BOOK_FILTER_FIELDS;

export const BookProgressSummary = z
  .object({
    current_page: z.number().int(),
    is_completed: z.boolean(),
    progress: z.number().describe('Fraction read, 0..1.'),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'BookProgressSummary' });

/** The book fields whose source GET /books/{id} names (media/metadata/metadata.ts records one per field at scan time). */
export const BOOK_SOURCED_FIELDS = [
  'title',
  'summary',
  'number',
  'volume',
  'year',
  'publisher',
  'language',
  'isbn',
  'genres',
  'tags',
  'authors',
  'page_count',
] as const;
export type BookSourcedField = (typeof BOOK_SOURCED_FIELDS)[number];
const FieldSource = z.enum([...METADATA_SOURCES, 'file']).nullable();

export const BookMetadataView = z
  .object({
    title: z.string(),
    summary: z.string().nullable(),
    number: z.string().nullable(),
    volume: z.number().int().nullable(),
    year: z.number().int().nullable(),
    publisher: z.string().nullable(),
    language: z.string().nullable(),
    isbn: z.string().nullable(),
    genres: z.array(z.string()),
    tags: z.array(z.string()),
    authors: z.array(z.object({ name: z.string(), role: z.string() })),
    number_sort: z.number().nullable().describe('Orders the books of a series (from `number` unless a person set it).'),
    release_date: z.string().nullable().describe('YYYY-MM-DD (a month or day the files do not give is 01).'),
    links: z.array(z.object({ label: z.string(), url: z.string() })),
    series: z.string().nullable().describe(`Name of the series the book is filed under. ${SERIES_NAME_RULE}`),
    sources: z
      .object({
        series: z
          .enum(METADATA_SOURCES)
          .nullable()
          .describe(
            'Where the series name came from: `comicinfo`, `opf`, `pdf` or `filename` (the source of the value the books agreed on), ' +
              '`folder` (no agreement: the folder name). The same for every book of the series. Null until the series is next scanned.',
          ),
        ...Object.fromEntries(
          BOOK_SOURCED_FIELDS.map((field) => [
            field,
            FieldSource.optional().describe(`Where \`${field}\` came from (null when no source gave it). Only in GET /books/{id}.`),
          ]),
        ),
      })
      .describe(
        'Where metadata values came from. `series` is in every book view; the source of each other field (`comicinfo`, `opf`, `pdf`, `filename`, ' +
          '`folder`, or `file` for facts measured from the file such as the page count) only in GET /books/{id}: lists do not read the stored record.',
      ),
  })
  .meta({ id: 'BookMetadata' });

export const BookView = z
  .object({
    id: z.string(),
    series_id: z.string(),
    library_id: z.string(),
    title: z.string(),
    number: z.string().nullable().describe('As written ("12.5", "1a"); lists sort by its numeric value.'),
    volume: z.number().int().nullable(),
    path: z.string().describe('File path relative to the library root.'),
    file_name: z.string(),
    file_size: z.number(),
    format: z.string().nullable().describe('cbz, cbr, epub or pdf; null when the file could not be identified.'),
    page_count: z.number().int(),
    hash: z.string().nullable().describe('SHA-256 of the file, lowercase hex.'),
    metadata: BookMetadataView,
    locks: z
      .record(z.string(), z.literal(true))
      .describe('The fields a person set and scans keep, each `true`; an unlocked field is absent (docs/metadata-editing.md).'),
    analysis_error: z.string().nullable(),
    file_modified_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    progress: BookProgressSummary.nullable().describe("The caller's progress; null when not started."),
  })
  .meta({ id: 'Book' });
export type BookView = z.infer<typeof BookView>;

export const BookListQuery = PaginationQuery.extend({
  sort: z
    .string()
    .optional()
    .describe(
      `Sort field (${BOOK_SORT_FIELDS.join(', ')}), optionally \`field,direction\`. modified_at is the record's last change. Default: title.`,
    ),
  order: z.enum(['asc', 'desc']).optional().describe('Sort direction when `sort` has none. Default asc.'),
  library_id: Uuid.optional(),
  libraryId: Uuid.optional().describe('Alias of library_id.'),
  series_id: Uuid.optional(),
  seriesId: Uuid.optional().describe('Alias of series_id.'),
});

export const BookFilterQuery = PaginationQuery.extend({
  sort: z.string().optional().describe('Sort, `field,direction`. Default: rank when fullTextSearch is given, else title.'),
  order: z.enum(['asc', 'desc']).optional(),
});

export const BookFilterBody = filterBodySchema('Book', BOOK_FILTER_FIELDS);
