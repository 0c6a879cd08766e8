import { z } from 'zod';
import { ageOf } from '../../media/metadata/age-ratings.js';
import { numberSortOf } from '../../media/metadata/metadata-values.js';

/**
 * The editable fields of a series and of a book (decision 032): each one's API name (the name GET shows), its
 * value schema, the columns it is stored in, and the conversions between the two. Pure: the metadata service, the
 * scanner (which keeps locked fields) and the history all go through these.
 */
export type EntityType = 'series' | 'book';

export const SERIES_STATUSES = ['ongoing', 'ended', 'abandoned', 'hiatus'] as const;
export const READING_DIRECTIONS = ['ltr', 'rtl', 'vertical', 'webtoon'] as const;
export const AUTHOR_ROLES = [
  'writer',
  'penciller',
  'inker',
  'colorist',
  'letterer',
  'cover',
  'editor',
  'translator',
  'illustrator',
  'author',
  'other',
] as const;

const Text = (max: number) => z.string().trim().max(max).nullable();
const Words = z.array(z.string().trim().min(1).max(200)).max(500);
/** Only web addresses: a link is shown as one, and `javascript:` or `file:` there would be a hazard. */
const isWebAddress = (text: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
};
export const Link = z
  .object({
    label: z.string().trim().max(200),
    url: z.string().trim().min(1).max(2000).refine(isWebAddress, 'must be a web address starting with http:// or https://'),
  })
  .meta({ id: 'MetadataLink' });
export const AlternateTitle = z
  .object({ label: z.string().trim().max(200), title: z.string().trim().min(1).max(500) })
  .meta({ id: 'AlternateTitle' });
export const ExternalId = z
  .object({
    provider: z.string().trim().min(1).max(40).describe('The online database (`anilist`, `mangadex`…).'),
    id: z.string().trim().min(1).max(200).describe("The entry's id there."),
    url: z.string().trim().max(2000).refine(isWebAddress, 'must be a web address starting with http:// or https://').nullable(),
  })
  .meta({ id: 'ExternalId' });

/**
 * Databases whose ids name the same work across libraries, most trusted first: the series' `external_id` (the spec's
 * series duplicates) is the first of its ids in this order, so a series matched on MangaDex (which links to AniList)
 * and one matched on AniList share it.
 */
const CANONICAL_ORDER = ['anilist', 'mangaupdates', 'mangadex', 'comicvine', 'metron', 'openlibrary'];

/** `provider:id` of the most trusted id, or null. */
export function canonicalExternalId(ids: readonly { provider: string; id: string }[]): string | null {
  const rank = (p: string) => {
    const i = CANONICAL_ORDER.indexOf(p);
    return i < 0 ? CANONICAL_ORDER.length : i;
  };
  const best = [...ids].sort((a, b) => rank(a.provider) - rank(b.provider))[0];
  return best ? `${best.provider}:${best.id}` : null;
}

export const Author = z.object({ name: z.string().trim().min(1).max(200), role: z.enum(AUTHOR_ROLES) }).meta({ id: 'MetadataAuthor' });

type Row = Record<string, unknown>;

interface FieldDef {
  schema: z.ZodType;
  /** The stored columns; the first holds the value, the others follow from it. */
  columns: readonly string[];
  toColumns(value: unknown): Row;
  fromRow(row: Row): unknown;
}

const json = (text: unknown, fallback: unknown[] = []): unknown => {
  if (typeof text !== 'string') return fallback;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : fallback;
  } catch {
    return fallback;
  }
};
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const blankToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : (v ?? null));

function column(name: string, schema: z.ZodType, kind: 'text' | 'number' = 'text'): FieldDef {
  return {
    schema,
    columns: [name],
    toColumns: (v) => ({ [name]: kind === 'text' ? blankToNull(v) : (v ?? null) }),
    fromRow: (row) => (kind === 'number' ? num(row[name]) : ((row[name] as string | null | undefined) ?? null)),
  };
}

function list(name: string, schema: z.ZodType): FieldDef {
  return { schema, columns: [name], toColumns: (v) => ({ [name]: JSON.stringify(v ?? []) }), fromRow: (row) => json(row[name]) };
}

export const SERIES_FIELD_DEFS = {
  title: column('title', Text(500).describe('Display title; null gives the name back (the name the files agree on).')),
  sort_title: {
    schema: z.string().trim().min(1).max(500).describe('Sorts the series by name (stored lower-cased).'),
    columns: ['sort_name'],
    toColumns: (v) => ({ sort_name: String(v).toLocaleLowerCase('en') }),
    fromRow: (row) => row.sort_name as string,
  },
  summary: column('summary', Text(20_000)),
  publisher: column('publisher', Text(500)),
  status: column('status', z.enum(SERIES_STATUSES).nullable()),
  reading_direction: column('reading_direction', z.enum(READING_DIRECTIONS).nullable()),
  age_rating: {
    schema: Text(100).describe('As written ("Teen", "16+"); the age it stands for is what age limits compare.'),
    columns: ['age_rating', 'age'],
    toColumns: (v) => {
      const rating = blankToNull(v) as string | null;
      return { age_rating: rating, age: ageOf(rating) ?? null };
    },
    fromRow: (row) => (row.age_rating as string | null | undefined) ?? null,
  },
  language: column('language', Text(50)),
  genres: list('genres', Words),
  tags: list('tags', Words),
  total_book_count: column('total_book_count', z.number().int().min(0).max(1_000_000).nullable(), 'number'),
  links: list('links', z.array(Link).max(100)),
  alternate_titles: list('alternate_titles', z.array(AlternateTitle).max(100)),
  year: column('year', z.number().int().min(1000).max(9999).nullable().describe('The year the series started.'), 'number'),
  authors: list('authors', z.array(Author).max(200)),
  external_ids: {
    schema: z.array(ExternalId).max(20).describe("The series' entries in online databases; the first by trust is its external_id."),
    columns: ['external_ids', 'external_id'],
    toColumns: (v) => {
      const ids = (v ?? []) as { provider: string; id: string }[];
      return { external_ids: JSON.stringify(ids), external_id: canonicalExternalId(ids) };
    },
    fromRow: (row) => json(row.external_ids),
  },
} satisfies Record<string, FieldDef>;

export const BOOK_FIELD_DEFS = {
  title: {
    schema: z.string().trim().min(1).max(500),
    columns: ['title'],
    toColumns: (v) => ({ title: v }),
    fromRow: (row) => row.title as string,
  },
  number: column('number', Text(50).describe('As written ("12.5", "1a"); sets number_sort too unless given.')),
  number_sort: column('number_sort', z.number().finite().nullable().describe('Orders the books of a series.'), 'number'),
  summary: column('summary', Text(20_000)),
  release_date: {
    schema: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .nullable()
      .describe('YYYY-MM-DD; its year is the book year.'),
    columns: ['release_date', 'year'],
    toColumns: (v) => {
      const date = blankToNull(v) as string | null;
      return { release_date: date, year: date ? Number(date.slice(0, 4)) : null };
    },
    fromRow: (row) => (row.release_date as string | null | undefined) ?? null,
  },
  authors: list('authors', z.array(Author).max(200)),
  tags: list('tags', Words),
  isbn: column('isbn', Text(20)),
  links: list('links', z.array(Link).max(100)),
} satisfies Record<string, FieldDef>;

export type SeriesField = keyof typeof SERIES_FIELD_DEFS;
export type BookField = keyof typeof BOOK_FIELD_DEFS;
export const SERIES_FIELDS = Object.keys(SERIES_FIELD_DEFS) as SeriesField[];
export const BOOK_FIELDS = Object.keys(BOOK_FIELD_DEFS) as BookField[];

export function fieldDefs(type: EntityType): Readonly<Record<string, FieldDef>> {
  return type === 'series' ? SERIES_FIELD_DEFS : BOOK_FIELD_DEFS;
}

/** Fields an edit of another one sets too, unless the request gives them: a new number renumbers the sort. */
export function impliedValues(type: EntityType, set: Readonly<Row>, current: Readonly<Row>): Row {
  if (type === 'book' && 'number' in set && !('number_sort' in set))
    return { number_sort: numberSortOf((set.number as string | null) ?? null) };
  if (type === 'series' && 'title' in set && !('sort_title' in set)) {
    const title = (blankToNull(set.title) as string | null) ?? (current.name as string);
    return { sort_title: title };
  }
  return {};
}

/** Values compare as JSON (lists in order). */
export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A scan's changes to an entity with locked fields: the columns of every locked field leave the changes, and their
 * values (the file's, in the API shape) are returned for the lock rows to keep.
 */
export function withoutLocked(
  type: EntityType,
  changes: Row,
  locked: ReadonlySet<string>,
): { changes: Row; fileValues: Map<string, unknown> } {
  const fileValues = new Map<string, unknown>();
  if (locked.size === 0) return { changes, fileValues };
  const out = { ...changes };
  const defs = fieldDefs(type);
  for (const field of locked) {
    const def = defs[field];
    if (!def) continue;
    if (def.columns[0]! in changes) fileValues.set(field, def.fromRow(changes));
    for (const c of def.columns) delete out[c];
  }
  return { changes: out, fileValues };
}

/** The fields whose value a scan's changes alter, with before and after (history of scans). */
export function changedFields(type: EntityType, before: Row, changes: Row): { field: string; before: unknown; after: unknown }[] {
  const out: { field: string; before: unknown; after: unknown }[] = [];
  for (const [field, def] of Object.entries(fieldDefs(type))) {
    if (!(def.columns[0]! in changes)) continue;
    const a = def.fromRow(before);
    const b = def.fromRow({ ...before, ...changes });
    if (!sameValue(a, b)) out.push({ field, before: a, after: b });
  }
  return out;
}
