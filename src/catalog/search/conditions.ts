import { z } from 'zod';
import { badRequest } from '../../http/errors.js';
import { Uuid } from '../../http/params.js';

/**
 * The filter request body of `POST /series/list` and `POST /books/list`: a condition tree of `allOf` (AND) and
 * `anyOf` (OR) nodes whose leaves are `{<field>: {operator, value}}`. Parsing checks every field and operator
 * against the resource's allow-list (400 naming the offender); `condition-sql.ts` compiles the parsed tree into
 * parameterized SQL through the repository's column map, so no input ever becomes SQL text.
 */
export const OPERATORS = ['is', 'isNot', 'isNull', 'isNotNull', 'contains', 'beginsWith'] as const;
export type Operator = (typeof OPERATORS)[number];

/** readStatus values: `unread` (no progress), `in_progress` (started, not finished), `read` (finished). */
export const READ_STATUSES = ['unread', 'in_progress', 'read'] as const;
export type ReadStatus = (typeof READ_STATUSES)[number];

/** Nesting depth and leaf count a condition may have. */
export const MAX_CONDITION_DEPTH = 8;
export const MAX_CONDITION_LEAVES = 100;

/** What a field holds decides its operators and value type. */
export type FieldKind = 'id' | 'text' | 'list' | 'readStatus' | 'boolean' | 'year' | 'author';

const OPERATORS_BY_KIND: Record<FieldKind, readonly Operator[]> = {
  id: ['is', 'isNot'],
  text: OPERATORS,
  list: OPERATORS,
  readStatus: ['is', 'isNot'],
  boolean: ['is', 'isNot'],
  year: ['is', 'isNot', 'isNull', 'isNotNull'],
  author: ['is', 'isNot', 'contains', 'beginsWith'],
};

/** Largest year a `year` leaf accepts (and the smallest is 0). */
const MAX_YEAR = 9999;

export function operatorsFor(kind: FieldKind): readonly Operator[] {
  return OPERATORS_BY_KIND[kind];
}

export interface Leaf<F extends string = string> {
  field: F;
  kind: FieldKind;
  operator: Operator;
  /**
   * string for id/text/list/readStatus and for the author's name (empty: any name); the year as a decimal
   * string for year fields; boolean for boolean fields; null for isNull/isNotNull.
   */
  value: string | boolean | null;
  /** Author leaves only: the role the author must have (case-insensitive), or null for any role. */
  role?: string | null;
}

export type Condition<F extends string = string> = { allOf: Condition<F>[] } | { anyOf: Condition<F>[] } | { leaf: Leaf<F> };

/** The body schema (documentation; the tree itself is checked by parseCondition so errors can name fields). */
export function filterBodySchema(resource: string, fields: Record<string, FieldKind>) {
  const fieldList = Object.entries(fields)
    .map(([f, k]) => `\`${f}\` (${operatorsFor(k).join(', ')})`)
    .join('; ');
  return z
    .object({
      condition: z
        .record(z.string(), z.unknown())
        .nullish()
        .describe(
          `A tree: \`{"allOf": [...]}\` (AND) or \`{"anyOf": [...]}\` (OR) of conditions, nested up to ${MAX_CONDITION_DEPTH} levels, ` +
            `or a leaf \`{"<field>": {"operator": "...", "value": ...}}\`. ${resource} fields and their operators: ${fieldList}. ` +
            'Text comparisons are case-insensitive; genre/tag operators test each element of the list (isNull: the list is empty). ' +
            '`readStatus` values: `unread`, `in_progress`, `read` (for the caller). ' +
            (Object.values(fields).includes('year') ? 'Year fields take an integer year (`releaseYear`: the release year). ' : '') +
            (Object.values(fields).includes('author')
              ? '`author` (an extension beyond the spec\'s list of fields) takes `{"name": "...", "role": "..."}` or just the name as a string; ' +
                'the operator applies to the name (is, isNot, contains, beginsWith; case-insensitive), `role` (optional: writer, penciller, inker, ' +
                'colorist, letterer, cover, editor, translator...) must then be the role of that same author; `{"role": "writer"}` alone with `is` ' +
                'matches any name. ' +
                (resource === 'Series'
                  ? 'A series matches when one of its present books does; `isNot`: when none does. '
                  : 'isNot: no author of the book matches. ')
              : '') +
            (Object.hasOwn(fields, 'collectionId')
              ? '`collectionId`: the series of that collection (one the caller sees: shared, or its own; any other matches nothing). '
              : '') +
            (Object.hasOwn(fields, 'readListId')
              ? '`readListId`: the books of that read list (one the caller sees: shared, or its own; any other matches nothing). '
              : '') +
            'Unknown fields or operators are a 400 naming them.',
        ),
      fullTextSearch: z
        .string()
        .max(500)
        .nullish()
        .describe('Full-text query combined with the condition (AND); results are ranked when no sort is given.'),
    })
    .meta({ id: `${resource}FilterBody` });
}

/** Validates a condition tree against the allow-list; throws a 400 naming the field or operator at fault. */
export function parseCondition<F extends string>(raw: unknown, fields: Record<F, FieldKind>, path = 'condition'): Condition<F> | null {
  if (raw === undefined || raw === null) return null;
  let leaves = 0;
  const walk = (node: unknown, at: string, depth: number): Condition<F> => {
    if (depth > MAX_CONDITION_DEPTH)
      throw badRequest(`Condition is nested deeper than ${MAX_CONDITION_DEPTH} levels at ${at}`, { path: at });
    if (!node || typeof node !== 'object' || Array.isArray(node)) throw badRequest(`${at} must be an object`, { path: at });
    const keys = Object.keys(node);
    if (keys.length !== 1)
      throw badRequest(`${at} must hold exactly one of allOf, anyOf or a filter field (found ${keys.length} keys)`, { path: at, keys });
    const key = keys[0]!;
    const value = (node as Record<string, unknown>)[key];
    if (key === 'allOf' || key === 'anyOf') {
      if (!Array.isArray(value)) throw badRequest(`${at}.${key} must be an array of conditions`, { path: `${at}.${key}` });
      const children = value.map((child, i) => walk(child, `${at}.${key}[${i}]`, depth + 1));
      return key === 'allOf' ? { allOf: children } : { anyOf: children };
    }
    if (!Object.hasOwn(fields, key)) {
      throw badRequest(`Unknown filter field "${key}" at ${at}; allowed: ${Object.keys(fields).join(', ')}`, {
        path: at,
        field: key,
        allowed: Object.keys(fields),
      });
    }
    leaves += 1;
    if (leaves > MAX_CONDITION_LEAVES) throw badRequest(`Condition has more than ${MAX_CONDITION_LEAVES} leaves`, { path: at });
    return { leaf: parseLeaf(key as F, fields[key as F], value, `${at}.${key}`) };
  };
  return walk(raw, path, 1);
}

function parseLeaf<F extends string>(field: F, kind: FieldKind, raw: unknown, at: string): Leaf<F> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw badRequest(`${at} must be an object {operator, value}`, { path: at, field });
  const { operator, value } = raw as { operator?: unknown; value?: unknown };
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    throw badRequest(`Unknown operator "${String(operator)}" for filter field "${field}"; operators: ${OPERATORS.join(', ')}`, {
      path: at,
      field,
      operator: operator ?? null,
    });
  }
  const allowed = operatorsFor(kind);
  if (!allowed.includes(operator as Operator)) {
    throw badRequest(`Operator "${operator}" does not apply to filter field "${field}"; allowed: ${allowed.join(', ')}`, {
      path: at,
      field,
      operator,
      allowed,
    });
  }
  const op = operator as Operator;
  if (op === 'isNull' || op === 'isNotNull') return { field, kind, operator: op, value: null };
  if (kind === 'author') return parseAuthorLeaf(field, op, value, at);
  if (kind === 'year') {
    const year = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,4}\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(year) || year < 0 || year > MAX_YEAR)
      throw badRequest(`${at}.value must be a year (an integer from 0 to ${MAX_YEAR})`, { path: `${at}.value`, field });
    return { field, kind, operator: op, value: String(year) };
  }
  if (kind === 'boolean') {
    const b = value === true || value === 'true' ? true : value === false || value === 'false' ? false : null;
    if (b === null) throw badRequest(`${at}.value must be true or false`, { path: `${at}.value`, field });
    return { field, kind, operator: op, value: b };
  }
  if (typeof value !== 'string' && typeof value !== 'number')
    throw badRequest(`${at}.value must be a string`, { path: `${at}.value`, field });
  const text = String(value);
  if (kind === 'id') {
    const id = Uuid.safeParse(text);
    if (!id.success) throw badRequest(`${at}.value must be a UUID`, { path: `${at}.value`, field });
    return { field, kind, operator: op, value: id.data };
  }
  if (kind === 'readStatus' && !(READ_STATUSES as readonly string[]).includes(text)) {
    throw badRequest(`${at}.value must be one of ${READ_STATUSES.join(', ')}`, { path: `${at}.value`, field, allowed: READ_STATUSES });
  }
  if (text.length > 500) throw badRequest(`${at}.value is too long`, { path: `${at}.value`, field });
  return { field, kind, operator: op, value: text };
}

/** An author leaf's value: the name as a string, or `{name?, role?}` (at least one; a name for contains/beginsWith). */
function parseAuthorLeaf<F extends string>(field: F, op: Operator, value: unknown, at: string): Leaf<F> {
  const text = (v: unknown, where: string): string | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw badRequest(`${where} must be a string`, { path: where, field });
    if (v.length > 500) throw badRequest(`${where} is too long`, { path: where, field });
    return v.trim() === '' ? null : v.trim();
  };
  let name: string | null;
  let role: string | null = null;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const extra = Object.keys(value).filter((k) => k !== 'name' && k !== 'role');
    if (extra.length)
      throw badRequest(`${at}.value has unknown keys ${extra.join(', ')}; an author is {name, role}`, {
        path: `${at}.value`,
        field,
        keys: extra,
      });
    name = text((value as { name?: unknown }).name, `${at}.value.name`);
    role = text((value as { role?: unknown }).role, `${at}.value.role`);
  } else {
    name = text(value, `${at}.value`);
  }
  if (name === null && (role === null || op === 'contains' || op === 'beginsWith')) {
    throw badRequest(op === 'is' || op === 'isNot' ? `${at}.value needs an author name or a role` : `${at}.value needs an author name`, {
      path: `${at}.value`,
      field,
    });
  }
  return { field, kind: 'author', operator: op, value: name ?? '', role };
}
