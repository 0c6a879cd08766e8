import { z } from 'zod';
import { PaginationQuery } from '../../http/pagination.js';
import { Uuid } from '../../http/params.js';
import { filterBodySchema, type FieldKind } from '../search/conditions.js';
import { SERIES_NAME_RULE } from '../books/schemas.js';

export const SERIES_SORT_FIELDS = [
  'name',
  'date_added',
  'date_updated',
  'release_date',
  'date_read',
  'book_count',
  'file_size',
  'filename',
  'page_count',
] as const;
export type SeriesSortField = (typeof SERIES_SORT_FIELDS)[number];

export const SERIES_FILTER_FIELDS = {
  libraryId: 'id',
  genre: 'list',
  tag: 'list',
  status: 'text',
  publisher: 'text',
  language: 'text',
  name: 'text',
  readStatus: 'readStatus',
  ageRating: 'text',
  releaseYear: 'year',
  author: 'author',
  collectionId: 'id',
} as const satisfies Record<string, FieldKind>;
export type SeriesFilterField = keyof typeof SERIES_FILTER_FIELDS;

export const SeriesMetadata = z
  .object({
    title: z.string().describe('The title set by the user or a provider, else the name.'),
    summary: z.string().nullable(),
    publisher: z.string().nullable(),
    genres: z.array(z.string()),
    tags: z.array(z.string()),
    status: z.string().nullable(),
    language: z.string().nullable(),
    year: z.number().int().nullable(),
    reading_direction: z.string().nullable(),
    age_rating: z
      .string()
      .nullable()
      .describe("The effective rating: the highest of the books' ratings (ComicInfo AgeRating and the common short forms)."),
    age: z.number().int().nullable().describe("The age age_rating stands for (users' age limits compare it); null when unrated."),
    sort_title: z.string().describe('What sorting by name compares (lower-cased).'),
    total_book_count: z.number().int().nullable().describe('How many books the series has in all, when a person said so.'),
    links: z.array(z.object({ label: z.string(), url: z.string() })),
    alternate_titles: z.array(z.object({ label: z.string(), title: z.string() })),
    authors: z.array(z.object({ name: z.string(), role: z.string() })).describe("The work's authors (a provider's or a person's)."),
    external_ids: z
      .array(z.object({ provider: z.string(), id: z.string(), url: z.string().nullable() }))
      .describe("The series' entries in online databases (identification)."),
  })
  .meta({ id: 'SeriesMetadata' });

/** Fields an online database filled: field name → where from, in words. */
export const FieldSources = z
  .record(z.string(), z.string())
  .describe(
    'Fields filled by identification, each with its source in words ("AniList 21, 2026-12-01"); scans keep them, and the next identification may replace them.',
  )
  .meta({ id: 'FieldSources' });

/** Locked fields (set by a person; scans keep them): field name → true. docs/metadata-editing.md. */
export const MetadataLocks = z
  .record(z.string(), z.literal(true))
  .describe('The fields a person set and scans keep, each `true`; an unlocked field is absent.')
  .meta({ id: 'MetadataLocks' });

export const SeriesView = z
  .object({
    id: z.string(),
    library_id: z.string(),
    name: z.string().describe(SERIES_NAME_RULE),
    path: z.string().describe('Folder of the series relative to the library root.'),
    book_count: z.number().int(),
    books_read_count: z.number().int().describe('Books the caller finished.'),
    books_unread_count: z.number().int().describe('Books the caller has not started.'),
    books_in_progress_count: z.number().int().describe('Books the caller started and has not finished.'),
    file_size: z.number().describe("Sum of the present books' file sizes, bytes."),
    page_count: z.number().int(),
    metadata: SeriesMetadata,
    sharing_labels: z
      .array(z.string())
      .describe("Sharing labels (lower-cased): users' labels_allow and labels_exclude decide who sees the series by them."),
    locks: MetadataLocks,
    field_sources: FieldSources,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Series' });
export type SeriesView = z.infer<typeof SeriesView>;

const sortDoc = `\`field,direction\`; fields: ${SERIES_SORT_FIELDS.join(', ')}; direction asc (default) or desc.`;

export const SeriesListQuery = PaginationQuery.extend({
  sort: z.string().optional().describe(`Sort, ${sortDoc} Default: name.`),
  library_id: Uuid.optional().describe('Only series of this library.'),
  libraryId: Uuid.optional().describe('Alias of library_id.'),
});

export const SeriesFilterQuery = PaginationQuery.extend({
  sort: z.string().optional().describe(`Sort, ${sortDoc} Default: rank when fullTextSearch is given, else name.`),
});

export const SeriesFilterBody = filterBodySchema('Series', SERIES_FILTER_FIELDS);

export const SeriesSearchBody = z
  .object({
    query: z.string().min(1).max(500).describe('Words to find (prefixes match; case and accents are ignored).'),
    library_id: Uuid.optional(),
    libraryId: Uuid.optional().describe('Alias of library_id.'),
  })
  .meta({ id: 'SeriesSearch' });

export const SeriesBooksQuery = PaginationQuery.extend({
  sort: z.string().optional().describe('Sort, `field,direction` over the book sort fields. Default: number.'),
  order: z.enum(['asc', 'desc']).optional(),
});

/** The series metadata lists a facet (the distinct values for a filter) can be asked of. */
export type SeriesFacetField = 'genre' | 'tag' | 'publisher' | 'language' | 'ageRating';

/** What SeriesService.update changes (PATCH /series/{id} takes it with the metadata fields, catalog/metadata). */
export interface SeriesUpdate {
  sharing_labels?: string[];
}
