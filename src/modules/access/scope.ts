import type { Caller } from '../auth/caller.js';
import { parseContentAccess, type ContentAccess } from './content-access.js';

/**
 * What a caller may see, for queries: everything, or libraries plus rules on series (age, sharing labels) that
 * cascade to their books. `series` is null when only libraries restrict.
 */
export type ContentScope =
  | { all: true }
  | { all: false; libraryIds: readonly string[] | null; series: SeriesRule | null };

/** The rules a series must pass, besides being in a visible library. */
export interface SeriesRule {
  /** null: no age limit. */
  maxAge: number | null;
  includeUnrated: boolean;
  labelsAllow: readonly string[];
  labelsExclude: readonly string[];
}

export const EVERYTHING: ContentScope = { all: true };

/** The scope an access setting gives a non-admin user. */
export function scopeOf(access: ContentAccess): ContentScope {
  const series: SeriesRule | null =
    access.maxAge === null && access.labelsAllow.length === 0 && access.labelsExclude.length === 0
      ? null
      : { maxAge: access.maxAge, includeUnrated: access.includeUnrated, labelsAllow: access.labelsAllow, labelsExclude: access.labelsExclude };
  if (access.libraryIds === null && series === null) return EVERYTHING;
  return { all: false, libraryIds: access.libraryIds, series };
}

/** A user's scope from its row: admins see everything, whatever their row holds. */
export function scopeOfUser(user: { role: string; content_access: string }): ContentScope {
  return user.role === 'admin' ? EVERYTHING : scopeOf(parseContentAccess(user.content_access));
}

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
