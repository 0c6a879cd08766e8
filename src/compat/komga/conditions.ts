import { badRequest } from '../../http/errors.js';
import { listParam, type KomgaListQuery } from './paging.js';

/**
 * Komga's filters (query parameters and the `condition` body of `POST series/list` / `books/list`) rewritten as
 * our own condition tree, which the series and books services validate and run. Nothing is filtered here.
 */
export type Node = { allOf: Node[] } | { anyOf: Node[] } | Record<string, { operator: string; value?: unknown }>;

/** Matches everything / nothing (our compiler turns an empty allOf into true and an empty anyOf into false). */
export const ALL: Node = { allOf: [] };
export const NONE: Node = { anyOf: [] };

const leaf = (field: string, operator: string, value?: unknown): Node => ({ [field]: value === undefined ? { operator } : { operator, value } });
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

/** `GET series` filters. `author` has no counterpart in our series filters and is refused rather than ignored. */
export function seriesQueryCondition(q: Partial<KomgaListQuery>): Node | null {
  if (q.author !== undefined) throw badRequest('Filtering series by author is not supported', { parameter: 'author' });
  return and([
    anyIs('libraryId', listParam(q.library_id)),
    anyIs('readStatus', listParam(q.read_status), readStatusOf),
    anyIs('status', listParam(q.status)),
    anyIs('publisher', listParam(q.publisher)),
    anyIs('language', listParam(q.language)),
    anyIs('genre', listParam(q.genre)),
    anyIs('tag', listParam(q.tag)),
    // Deleted series are never listed; collections, sharing labels and one-shots do not exist here.
    q.deleted === true || q.oneshot === true || listParam(q.collection_id).length > 0 || listParam(q.sharing_label).length > 0 ? NONE : null,
  ]);
}

/** `GET books` and `GET series/{id}/books` filters. */
export function bookQueryCondition(q: Partial<KomgaListQuery>, seriesId?: string): Node | null {
  if (q.author !== undefined) throw badRequest('Filtering books by author is not supported', { parameter: 'author' });
  const media = listParam(q.media_status);
  return and([
    seriesId ? leaf('seriesId', 'is', seriesId) : null,
    anyIs('libraryId', listParam(q.library_id)),
    anyIs('readStatus', listParam(q.read_status), readStatusOf),
    anyIs('tag', listParam(q.tag)),
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
};

const BOOK_FIELDS: Record<string, FieldMap> = {
  libraryId: { field: 'libraryId', operators: EQUALITY_OPERATORS },
  seriesId: { field: 'seriesId', operators: EQUALITY_OPERATORS },
  title: { field: 'title', operators: STRING_OPERATORS },
  tag: { field: 'tag', operators: NULLABLE_OPERATORS },
  readStatus: { field: 'readStatus', operators: EQUALITY_OPERATORS, value: (v) => readStatusOf(String(v)) },
};

/** Conditions on things that do not exist here: deleted items, one-shots, collections, read lists. */
function constantNode(key: string, operator: string): Node | undefined {
  if (key === 'deleted' || key === 'oneShot') return operator === 'isTrue' ? NONE : operator === 'isFalse' ? ALL : undefined;
  if (key === 'collectionId' || key === 'readListId') return operator === 'is' ? NONE : operator === 'isNot' ? ALL : undefined;
  return undefined;
}

const MAX_DEPTH = 8;

function translate(raw: unknown, fields: Record<string, FieldMap>, at: string, depth: number, books: boolean): Node {
  if (depth > MAX_DEPTH) throw badRequest(`Condition is nested too deeply at ${at}`, { path: at });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`${at} must be an object`, { path: at });
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length !== 1) throw badRequest(`${at} must hold exactly one condition`, { path: at });
  const [key, value] = entries[0]!;
  if (key === 'allOf' || key === 'anyOf') {
    if (!Array.isArray(value)) throw badRequest(`${at}.${key} must be an array`, { path: `${at}.${key}` });
    const children = value.map((c, i) => translate(c, fields, `${at}.${key}[${i}]`, depth + 1, books));
    return key === 'allOf' ? { allOf: children } : { anyOf: children };
  }
  const op = value && typeof value === 'object' ? (value as { operator?: unknown; value?: unknown }) : {};
  const operator = typeof op.operator === 'string' ? op.operator : '';
  const constant = constantNode(key, operator);
  if (constant) return constant;
  if (books && key === 'mediaStatus' && (operator === 'is' || operator === 'isNot')) return mediaStatusNode(String(op.value ?? ''), operator === 'isNot');
  const map = fields[key];
  if (!map) throw badRequest(`Unsupported condition "${key}" at ${at}; supported: ${[...Object.keys(fields), 'allOf', 'anyOf', 'deleted', 'oneShot'].join(', ')}`, { path: at, field: key });
  const ours = map.operators[operator];
  if (!ours) throw badRequest(`Unsupported operator "${operator}" for "${key}" at ${at}; supported: ${Object.keys(map.operators).join(', ')}`, { path: at, field: key, operator });
  if (ours === 'isNull' || ours === 'isNotNull') return leaf(map.field, ours);
  // Komga's nullable equality sends `is null` as `{operator: "is", value: null}`.
  if (op.value === null && (ours === 'is' || ours === 'isNot') && map.operators.isNull) return leaf(map.field, ours === 'is' ? 'isNull' : 'isNotNull');
  return leaf(map.field, ours, map.value ? map.value(op.value) : op.value);
}

/** The `condition` of Komga's `SeriesSearch` body. */
export function seriesBodyCondition(raw: unknown): Node | null {
  return raw === undefined || raw === null ? null : translate(raw, SERIES_FIELDS, 'condition', 1, false);
}

/** The `condition` of Komga's `BookSearch` body. */
export function bookBodyCondition(raw: unknown): Node | null {
  return raw === undefined || raw === null ? null : translate(raw, BOOK_FIELDS, 'condition', 1, true);
}

/** Several conditions that must all hold (any may be absent). */
export function allOf(...nodes: (Node | null | undefined)[]): Record<string, unknown> | null {
  return and(nodes.map((n) => n ?? null)) as Record<string, unknown> | null;
}
