import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ContentScope, SeriesRule } from './scope.js';

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;
const and = (parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> =>
  parts.length === 0 ? TRUE : parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` and `)})`;

/** `library_id` (a column reference) within the scope's libraries. */
function libraryIn(scope: ContentScope, libraryColumn: string): RawBuilder<SqlBool> | undefined {
  if (scope.all || scope.libraryIds === null) return undefined;
  return scope.libraryIds.length === 0 ? FALSE : sql<SqlBool>`${sql.ref(libraryColumn)} in (${sql.join([...scope.libraryIds])})`;
}

/** The series rule on a series row: `id` and `age` are its column references. */
function ruleOn(rule: SeriesRule, idColumn: string, ageColumn: string): RawBuilder<SqlBool>[] {
  const parts: RawBuilder<SqlBool>[] = [];
  const age = sql.ref(ageColumn);
  if (rule.maxAge !== null)
    parts.push(
      rule.includeUnrated
        ? sql<SqlBool>`(${age} is null or ${age} <= ${rule.maxAge})`
        : sql<SqlBool>`(${age} is not null and ${age} <= ${rule.maxAge})`,
    );
  const labelled = (labels: readonly string[]) =>
    sql<SqlBool>`exists (select 1 from series_sharing_labels ssl where ssl.series_id = ${sql.ref(idColumn)} and ssl.label in (${sql.join([...labels])}))`;
  if (rule.labelsExclude.length > 0) parts.push(sql<SqlBool>`not ${labelled(rule.labelsExclude)}`);
  if (rule.labelsAllow.length > 0) parts.push(labelled(rule.labelsAllow));
  return parts;
}

/**
 * A series row (`alias`: its table name or alias in the query) the caller sees: its library and the series rules.
 * `1 = 1` for an unrestricted caller, so a query stays the same shape for everyone.
 */
export function seriesVisible(scope: ContentScope, alias: string): RawBuilder<SqlBool> {
  if (scope.all) return TRUE;
  const parts: RawBuilder<SqlBool>[] = [];
  const library = libraryIn(scope, `${alias}.library_id`);
  if (library) parts.push(library);
  if (scope.series) parts.push(...ruleOn(scope.series, `${alias}.id`, `${alias}.age`));
  return and(parts);
}

/**
 * A book row (`alias`) the caller sees: its library, and its series passing the series rules (a series'
 * restriction cascades to its books).
 */
export function bookVisible(scope: ContentScope, alias: string): RawBuilder<SqlBool> {
  if (scope.all) return TRUE;
  const parts: RawBuilder<SqlBool>[] = [];
  const library = libraryIn(scope, `${alias}.library_id`);
  if (library) parts.push(library);
  if (scope.series) {
    const rule = ruleOn(scope.series, 'vs.id', 'vs.age');
    parts.push(sql<SqlBool>`exists (select 1 from series vs where vs.id = ${sql.ref(`${alias}.series_id`)} and ${and(rule)})`);
  }
  return and(parts);
}

/** The same for a row that has only a book id (`column`): progress, kosync documents, events. */
export function bookIdVisible(scope: ContentScope, column: string): RawBuilder<SqlBool> {
  if (scope.all) return TRUE;
  return sql<SqlBool>`exists (select 1 from books vb where vb.id = ${sql.ref(column)} and ${bookVisible(scope, 'vb')})`;
}

/** The same for a row that has only a series id (`column`). */
export function seriesIdVisible(scope: ContentScope, column: string): RawBuilder<SqlBool> {
  if (scope.all) return TRUE;
  return sql<SqlBool>`exists (select 1 from series vsr where vsr.id = ${sql.ref(column)} and ${seriesVisible(scope, 'vsr')})`;
}
