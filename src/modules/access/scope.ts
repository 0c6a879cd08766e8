import type { Caller } from '../auth/caller.js';

/** Libraries a caller may see: every library, or the listed ones. */
export type LibraryScope = { all: true } | { all: false; libraryIds: readonly string[] };

/**
 * The one place that decides which libraries a caller sees in series, books, pages, progress and statistics.
 * Today libraries are shared by every user, so it is all of them (the route's permission still decides what
 * the caller may do); per-user library restrictions narrow it here and nowhere else.
 */
export function libraryScopeFor(_caller: Caller): LibraryScope {
  return { all: true };
}

/** Whether a library is within the scope. */
export function inScope(scope: LibraryScope, libraryId: string): boolean {
  return scope.all || scope.libraryIds.includes(libraryId);
}
