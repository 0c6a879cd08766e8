import { badRequest } from '../../http/errors.js';
import { Uuid } from '../../http/params.js';
import { ageOf } from '../../media/metadata/age-ratings.js';
import { authorParams, listParam, type KomgaListQuery } from './paging.js';

/**
 * Komga's filters (query parameters and the `condition` body of `POST series/list` / `books/list`) rewritten as
 * our own condition tree, which the series and books services validate and run. Nothing is filtered here.
 */
export type Node = { allOf: Node[] } | { anyOf: Node[] } | Record<string, { operator: string; value?: unknown }>;

/**
 * What translating needs from the catalog: the age ratings as stored in the caller's series (null: some series
 * have none). Komga filters by age (13, 18, "None") while ComicInfo stores ratings ("Teen", "M"); an age matches
 * the stored ratings that present as that age (media/metadata/age-ratings.ts `ageOf`, the table the DTOs and the users' age
 * limits use), so the filter agrees with what the DTOs show.
 */
export interface KomgaFilterContext {
  ageRatings: readonly (string | null)[];
}
const NO_CONTEXT: KomgaFilterContext = { ageRatings: [] };

/** Matches everything / nothing (our compiler turns an empty allOf into true and an empty anyOf into false). */
export const ALL: Node = { allOf: [] };
export const NONE: Node = { anyOf: [] };

const leaf = (field: string, operator: string, value?: unknown): Node => ({
  [field]: value === undefined ? { operator } : { operator, value },
});
const anyIs = (field: string, values: string[], map: (v: string) => string = (v) => v): Node | null =>
  values.length === 0 ? null : { anyOf: values.map((v) => leaf(field, 'is', map(v))) };

/** Komga's READ/UNREAD/IN_PROGRESS and ours. */
export function readStatusOf(value: string): string {
  const v = value.trim().toUpperCase();
  if (v === 'READ') return 'read';
  if (v === 'UNREAD') return 'unread';
  if (v === 'IN_PROGRESS') return 'in_progress';
  throw badRequest(`Unknown read status "${value}"; use UNREAD, IN_PROGRESS or READ`, { value });
}

/** Media status: a book is READY when it was analysed without error, ERROR otherwise; other states never match. */
function mediaStatusNode(value: string, negate: boolean): Node {
  const v = value.trim().toUpperCase();
  if (v === 'READY' || v === 'ERROR') return leaf('hasError', negate ? 'isNot' : 'is', v === 'ERROR');
  return negate ? ALL : NONE;
}

const and = (nodes: (Node | null)[]): Node | null => {
  const kept = nodes.filter((n): n is Node => n !== null);
  return kept.length === 0 ? null : { allOf: kept };
};

/** Filter parameters a list does not support are refused (400 naming them), never ignored. */
function refuse(q: Partial<KomgaListQuery>, names: (keyof KomgaListQuery)[], list: string): void {
  const given = names.filter((n) => q[n] !== undefined && !(Array.isArray(q[n]) && (q[n] as unknown[]).length === 0));
  if (given.length)
    throw badRequest(
      given.length > 1
        ? `Unsupported filter parameters ${given.join(', ')} for ${list}`
        : `Unsupported filter parameter ${given.join(', ')} for ${list}`,
      { parameters: given },
    );
}

/** `author=name,role` (repeatable, any of them): our `author` leaf; an empty name with a role matches the role. */
function authorNode(q: Partial<KomgaListQuery>): Node | null {
  const authors = authorParams(q.author);
  if (authors.some((a) => a.name === '' && a.role === null))
    throw badRequest('author must be "name,role" (name, role or both)', { parameter: 'author' });
  return authors.length ? { anyOf: authors.map((a) => leaf('author', 'is', { name: a.name || null, role: a.role })) } : null;
}

/** `release_year=1984` (repeatable, any of them). */
function releaseYearNode(q: Partial<KomgaListQuery>): Node | null {
  const years = listParam(q.release_year);
  for (const y of years)
    if (!/^\d{1,4}$/.test(y)) throw badRequest(`release_year must be a year (got "${y}")`, { parameter: 'release_year', value: y });
  return anyIs('releaseYear', years);
}

/** The stored ratings whose age passes the test (undefined: no rating, or one without an age), as a condition. */
function ratingsWhere(ctx: KomgaFilterContext, test: (age: number | undefined) => boolean): Node {
  const ratings = ctx.ageRatings.filter((r) => test(r === null ? undefined : ageOf(r)));
  return ratings.length ? { anyOf: ratings.map((r) => (r === null ? leaf('ageRating', 'isNull') : leaf('ageRating', 'is', r))) } : NONE;
}

/** `age_rating=13` / `age_rating=None` (repeatable, any of them). */
function ageRatingParamNode(q: Partial<KomgaListQuery>, ctx: KomgaFilterContext): Node | null {
  const values = listParam(q.age_rating);
  if (values.length === 0) return null;
  return {
    anyOf: values.map((v) => {
      if (v.toLowerCase() === 'none') return ratingsWhere(ctx, (age) => age === undefined);
      if (!/^\d{1,3}$/.test(v)) throw badRequest(`age_rating must be an age or None (got "${v}")`, { parameter: 'age_rating', value: v });
      return ratingsWhere(ctx, (age) => age === Number(v));
    }),
  };
}

/** Whether a query or condition body filters by age rating (then the caller's stored ratings are needed). */
export function needsAgeRatings(q: Partial<KomgaListQuery>): boolean {
  return listParam(q.age_rating).length > 0;
}
export function conditionMentions(raw: unknown, key: string, depth = 0): boolean {
  if (!raw || typeof raw !== 'object' || depth > MAX_DEPTH + 1) return false;
  if (Array.isArray(raw)) return raw.some((c) => conditionMentions(c, key, depth + 1));
  return Object.entries(raw as Record<string, unknown>).some(
    ([k, v]) => k === key || ((k === 'allOf' || k === 'anyOf') && conditionMentions(v, key, depth + 1)),
  );
}

/**
 * `GET series` filters. `complete`: no series here knows its total book count, so none is complete.
 * `search_regex` and `media_status`/`released_after` (not series filters) are refused, and so is `sharing_label`:
 * series carry sharing labels, but the series filter has no field to select them by (matching nothing would be a
 * wrong answer, not an empty one).
 */
export function seriesQueryCondition(q: Partial<KomgaListQuery>, ctx: KomgaFilterContext = NO_CONTEXT): Node | null {
  refuse(q, ['search_regex', 'media_status', 'released_after', 'sharing_label'], 'series');
  return and([
    anyIs('libraryId', listParam(q.library_id)),
    anyIs('readStatus', listParam(q.read_status), readStatusOf),
    anyIs('status', listParam(q.status)),
    anyIs('publisher', listParam(q.publisher)),
    anyIs('language', listParam(q.language)),
    anyIs('genre', listParam(q.genre)),
    anyIs('tag', listParam(q.tag)),
    authorNode(q),
    releaseYearNode(q),
    ageRatingParamNode(q, ctx),
    // Deleted series are never listed; collections and one-shots do not exist here.
    q.deleted === true || q.oneshot === true || q.complete === true || listParam(q.collection_id).length > 0 ? NONE : null,
  ]);
}

/** `GET books` and `GET series/{id}/books` filters; series-only filters are refused. */
export function bookQueryCondition(q: Partial<KomgaListQuery>, seriesId?: string): Node | null {
  refuse(
    q,
    ['status', 'publisher', 'language', 'age_rating', 'collection_id', 'sharing_label', 'complete', 'search_regex', 'released_after'],
    'books',
  );
  const media = listParam(q.media_status);
  return and([
    seriesId ? leaf('seriesId', 'is', seriesId) : null,
    anyIs('libraryId', listParam(q.library_id)),
    anyIs('readStatus', listParam(q.read_status), readStatusOf),
    anyIs('tag', listParam(q.tag)),
    anyIs('genre', listParam(q.genre)),
    authorNode(q),
    releaseYearNode(q),
    media.length ? { anyOf: media.map((m) => mediaStatusNode(m, false)) } : null,
    q.deleted === true || q.oneshot === true ? NONE : null,
  ]);
}

const STRING_OPERATORS: Record<string, string> = { is: 'is', isNot: 'isNot', contains: 'contains', beginsWith: 'beginsWith' };
const EQUALITY_OPERATORS: Record<string, string> = { is: 'is', isNot: 'isNot' };
const NULLABLE_OPERATORS: Record<string, string> = { is: 'is', isNot: 'isNot', isNull: 'isNull', isNotNull: 'isNotNull' };

interface FieldMap {
  /** Our field name, and the operators it takes (Komga's name -> ours). */
  field: string;
  operators: Record<string, string>;
  value?: (v: unknown) => unknown;
}

/** Komga's AuthorMatch `{name, role}` (either may be null) as our author value. */
const authorMatch = (v: unknown): unknown => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const { name, role, ...rest } = v as { name?: unknown; role?: unknown };
  return { name: name ?? null, role: role ?? null, ...rest };
};

const SERIES_FIELDS: Record<string, FieldMap> = {
  libraryId: { field: 'libraryId', operators: EQUALITY_OPERATORS },
  title: { field: 'name', operators: STRING_OPERATORS },
  titleSort: { field: 'name', operators: STRING_OPERATORS },
  tag: { field: 'tag', operators: NULLABLE_OPERATORS },
  genre: { field: 'genre', operators: NULLABLE_OPERATORS },
  publisher: { field: 'publisher', operators: EQUALITY_OPERATORS },
  language: { field: 'language', operators: EQUALITY_OPERATORS },
  seriesStatus: { field: 'status', operators: EQUALITY_OPERATORS },
  readStatus: { field: 'readStatus', operators: EQUALITY_OPERATORS, value: (v) => readStatusOf(String(v)) },
  author: { field: 'author', operators: EQUALITY_OPERATORS, value: authorMatch },
  collectionId: { field: 'collectionId', operators: EQUALITY_OPERATORS },
};

const BOOK_FIELDS: Record<string, FieldMap> = {
  libraryId: { field: 'libraryId', operators: EQUALITY_OPERATORS },
  seriesId: { field: 'seriesId', operators: EQUALITY_OPERATORS },
  title: { field: 'title', operators: STRING_OPERATORS },
  tag: { field: 'tag', operators: NULLABLE_OPERATORS },
  readStatus: { field: 'readStatus', operators: EQUALITY_OPERATORS, value: (v) => readStatusOf(String(v)) },
  author: { field: 'author', operators: EQUALITY_OPERATORS, value: authorMatch },
  readListId: { field: 'readListId', operators: EQUALITY_OPERATORS },
};

/**
 * Komga's `ageRating` condition (SearchOperatorNumericNullableInteger over ages): is, isNot, greaterThan,
 * lessThan, isNull, isNotNull; `is`/`isNot` with a null value mean isNull/isNotNull. isNot also matches series
 * without an age (as our isNot does for every field).
 */
function ageRatingCondition(operator: string, value: unknown, ctx: KomgaFilterContext, at: string): Node {
  const age = value === null || value === undefined ? null : Number(value);
  if (age !== null && !Number.isInteger(age))
    throw badRequest(`${at}.ageRating.value must be an integer age`, { path: at, field: 'ageRating' });
  const needsAge = (op: string) => {
    if (age === null) throw badRequest(`${at}.ageRating.value is required for ${op}`, { path: at, field: 'ageRating', operator: op });
    return age;
  };
  switch (operator) {
    case 'isNull':
      return ratingsWhere(ctx, (a) => a === undefined);
    case 'isNotNull':
      return ratingsWhere(ctx, (a) => a !== undefined);
    case 'is':
      return age === null ? ratingsWhere(ctx, (a) => a === undefined) : ratingsWhere(ctx, (a) => a === age);
    case 'isNot':
      return age === null ? ratingsWhere(ctx, (a) => a !== undefined) : ratingsWhere(ctx, (a) => a !== age);
    case 'greaterThan': {
      const n = needsAge(operator);
      return ratingsWhere(ctx, (a) => a !== undefined && a > n);
    }
    case 'lessThan': {
      const n = needsAge(operator);
      return ratingsWhere(ctx, (a) => a !== undefined && a < n);
    }
    default:
      throw badRequest(
        `Unsupported operator "${operator}" for "ageRating" at ${at}; supported: is, isNot, greaterThan, lessThan, isNull, isNotNull`,
        {
          path: at,
          field: 'ageRating',
          operator,
        },
      );
  }
}

/**
 * Conditions whose answer is known without looking: deleted items, one-shots and complete series do not exist here;
 * an id that is none of ours names no collection or read list (as does a read list for series, a collection for books).
 */
function constantNode(key: string, operator: string, value: unknown, books: boolean): Node | undefined {
  if (key === 'deleted' || key === 'oneShot' || key === 'complete')
    return operator === 'isTrue' ? NONE : operator === 'isFalse' ? ALL : undefined;
  if (key === 'collectionId' || key === 'readListId') {
    const ours = (key === 'readListId') === books && Uuid.safeParse(value).success;
    if (!ours) return operator === 'is' ? NONE : operator === 'isNot' ? ALL : undefined;
  }
  return undefined;
}

const MAX_DEPTH = 8;

function translate(
  raw: unknown,
  fields: Record<string, FieldMap>,
  at: string,
  depth: number,
  books: boolean,
  ctx: KomgaFilterContext,
): Node {
  if (depth > MAX_DEPTH) throw badRequest(`Condition is nested too deeply at ${at}`, { path: at });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`${at} must be an object`, { path: at });
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length !== 1) throw badRequest(`${at} must hold exactly one condition`, { path: at });
  const [key, value] = entries[0]!;
  if (key === 'allOf' || key === 'anyOf') {
    if (!Array.isArray(value)) throw badRequest(`${at}.${key} must be an array`, { path: `${at}.${key}` });
    const children = value.map((c, i) => translate(c, fields, `${at}.${key}[${i}]`, depth + 1, books, ctx));
    return key === 'allOf' ? { allOf: children } : { anyOf: children };
  }
  const op = value && typeof value === 'object' ? (value as { operator?: unknown; value?: unknown }) : {};
  const operator = typeof op.operator === 'string' ? op.operator : '';
  const constant = constantNode(key, operator, op.value, books);
  if (constant) return constant;
  if (!books && key === 'ageRating') return ageRatingCondition(operator, op.value, ctx, at);
  if (books && key === 'mediaStatus' && (operator === 'is' || operator === 'isNot'))
    return mediaStatusNode(String(op.value ?? ''), operator === 'isNot');
  // Own keys only: "constructor" or "__proto__" must be unknown fields, not Object's.
  const map = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (!map)
    throw badRequest(
      `Unsupported condition "${key}" at ${at}; supported: ${[...Object.keys(fields), ...(books ? ['mediaStatus'] : ['ageRating', 'complete']), 'allOf', 'anyOf', 'deleted', 'oneShot'].join(', ')}`,
      { path: at, field: key },
    );
  const ours = Object.hasOwn(map.operators, operator) ? map.operators[operator] : undefined;
  if (!ours)
    throw badRequest(`Unsupported operator "${operator}" for "${key}" at ${at}; supported: ${Object.keys(map.operators).join(', ')}`, {
      path: at,
      field: key,
      operator,
    });
  if (ours === 'isNull' || ours === 'isNotNull') return leaf(map.field, ours);
  // Komga's nullable equality sends `is null` as `{operator: "is", value: null}`.
  if (op.value === null && (ours === 'is' || ours === 'isNot') && map.operators.isNull)
    return leaf(map.field, ours === 'is' ? 'isNull' : 'isNotNull');
  return leaf(map.field, ours, map.value ? map.value(op.value) : op.value);
}

/** The `condition` of Komga's `SeriesSearch` body. */
export function seriesBodyCondition(raw: unknown, ctx: KomgaFilterContext = NO_CONTEXT): Node | null {
  return raw === undefined || raw === null ? null : translate(raw, SERIES_FIELDS, 'condition', 1, false, ctx);
}

/** The `condition` of Komga's `BookSearch` body. */
export function bookBodyCondition(raw: unknown): Node | null {
  return raw === undefined || raw === null ? null : translate(raw, BOOK_FIELDS, 'condition', 1, true, NO_CONTEXT);
}

/** Several conditions that must all hold (any may be absent). */
export function allOf(...nodes: (Node | null | undefined)[]): Record<string, unknown> | null {
  return and(nodes.map((n) => n ?? null)) as Record<string, unknown> | null;
}
