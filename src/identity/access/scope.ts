import type { Caller } from './caller.js';
import type { ContentScope, SeriesRule } from './content-access.js';

export { EVERYTHING, scopeOf, scopeOfUser, type ContentScope, type SeriesRule } from './content-access.js';

/**
 * The one place that decides what a caller sees in series, books, pages, progress, statistics, feeds and every
 * other protocol: the user's access, read with the user row (so a change holds on the next request) into
 * `Caller.scope` by scopeOfUser.
 */
export function scopeFor(caller: Caller): ContentScope {
  return caller.scope;
}

/** Whether a library is within the scope (its series may still be hidden by the series rules). */
export function inScope(scope: ContentScope, libraryId: string): boolean {
  return scope.all || scope.libraryIds === null || scope.libraryIds.includes(libraryId);
}

/** A series row as the rules need it. */
export interface SeriesFacts {
  library_id: string;
  age: number | null;
  labels: readonly string[];
}

/** Whether the caller sees a series (its library, age and labels), for rows already in memory. */
export function seriesInScope(scope: ContentScope, s: SeriesFacts): boolean {
  if (scope.all) return true;
  if (!inScope(scope, s.library_id)) return false;
  return !scope.series || passesRule(scope.series, s.age, s.labels);
}

export function passesRule(rule: SeriesRule, age: number | null, labels: readonly string[]): boolean {
  if (rule.maxAge !== null && (age === null ? !rule.includeUnrated : age > rule.maxAge)) return false;
  if (rule.labelsExclude.some((l) => labels.includes(l))) return false;
  if (rule.labelsAllow.length > 0 && !rule.labelsAllow.some((l) => labels.includes(l))) return false;
  return true;
}
