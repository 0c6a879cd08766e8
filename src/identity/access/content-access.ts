import { z } from 'zod';
import { parseJsonColumn, toJsonColumn } from '../../db/json-column.js';

/**
 * What a user may see, as an administrator set it (users.content_access): which libraries, up to which age, which
 * sharing labels. Admins see everything whatever is stored (scope.ts decides).
 */
export interface ContentAccess {
  /** null: every library, also those created later. */
  libraryIds: string[] | null;
  /** null: no age limit. */
  maxAge: number | null;
  /** With an age limit: whether series without a rating are shown. */
  includeUnrated: boolean;
  /** Only series carrying one of these (none: no such rule). */
  labelsAllow: string[];
  /** Never series carrying one of these; wins over `labelsAllow`. */
  labelsExclude: string[];
}

export const FULL_ACCESS: ContentAccess = { libraryIds: null, maxAge: null, includeUnrated: true, labelsAllow: [], labelsExclude: [] };

/** Labels compare trimmed and lower-cased, on series and users alike (Komga's clients send them as typed). */
export const normalizeLabel = (label: string): string => label.trim().toLowerCase();
export const normalizeLabels = (labels: readonly string[]): string[] =>
  [...new Set(labels.map(normalizeLabel).filter((l) => l.length > 0))].sort();

const Label = z.string().trim().min(1).max(100);

export const LibraryAccess = z
  .union([
    z.object({ all: z.literal(true) }).strict(),
    z.object({ all: z.literal(false), library_ids: z.array(z.uuid()).max(1000) }).strict(),
  ])
  .describe('`{"all": true}`: every library, also those added later. `{"all": false, "library_ids": [...]}`: only these.')
  .meta({ id: 'LibraryAccess' });
export type LibraryAccess = z.infer<typeof LibraryAccess>;

export const AgeRestriction = z
  .object({
    max_age: z.number().int().min(0).max(99).describe('Series rated for an older age are hidden.'),
    include_unrated: z.boolean().describe('Whether series without an age rating are shown.'),
  })
  .strict()
  .nullable()
  .describe('null: no age limit. A series is as old as its rating (ComicInfo `AgeRating` and the common short forms).')
  .meta({ id: 'AgeRestriction' });
export type AgeRestriction = z.infer<typeof AgeRestriction>;

export const LabelList = z.array(Label).max(100).describe('Sharing labels, compared case-insensitively (stored lower-cased).');

/** The access fields of the user API. */
export const AccessFields = {
  library_access: LibraryAccess,
  age_restriction: AgeRestriction,
  labels_allow: LabelList.describe('Only series carrying at least one of these labels are shown (empty: no such rule).'),
  labels_exclude: LabelList.describe('Series carrying any of these labels are never shown; wins over labels_allow.'),
};

export interface AccessView {
  library_access: LibraryAccess;
  age_restriction: AgeRestriction;
  labels_allow: string[];
  labels_exclude: string[];
}

export function accessView(a: ContentAccess): AccessView {
  return {
    library_access: a.libraryIds === null ? { all: true } : { all: false, library_ids: a.libraryIds },
    age_restriction: a.maxAge === null ? null : { max_age: a.maxAge, include_unrated: a.includeUnrated },
    labels_allow: a.labelsAllow,
    labels_exclude: a.labelsExclude,
  };
}

/** An access as the API sent it (fields left out keep `base`'s). */
export function accessFrom(input: Partial<AccessView>, base: ContentAccess = FULL_ACCESS): ContentAccess {
  const out = { ...base };
  if (input.library_access !== undefined)
    out.libraryIds = input.library_access.all ? null : [...new Set(input.library_access.library_ids)].sort();
  if (input.age_restriction !== undefined) {
    out.maxAge = input.age_restriction?.max_age ?? null;
    out.includeUnrated = input.age_restriction?.include_unrated ?? true;
  }
  if (input.labels_allow !== undefined) out.labelsAllow = normalizeLabels(input.labels_allow);
  if (input.labels_exclude !== undefined) out.labelsExclude = normalizeLabels(input.labels_exclude);
  return out;
}

const Stored = z.object({
  library_ids: z.array(z.string()).nullable().optional(),
  max_age: z.number().int().nullable().optional(),
  include_unrated: z.boolean().optional(),
  labels_allow: z.array(z.string()).optional(),
  labels_exclude: z.array(z.string()).optional(),
});

/**
 * The stored column. A document that cannot be read hides everything (no library): an unreadable restriction
 * must not become no restriction.
 */
export function parseContentAccess(column: string): ContentAccess {
  const parsed = parseJsonColumn<unknown>(column, undefined, (v) => v);
  const stored = Stored.safeParse(parsed);
  if (!stored.success) return { ...FULL_ACCESS, libraryIds: [] };
  const s = stored.data;
  return {
    libraryIds: s.library_ids ?? null,
    maxAge: s.max_age ?? null,
    includeUnrated: s.include_unrated ?? true,
    labelsAllow: s.labels_allow ?? [],
    labelsExclude: s.labels_exclude ?? [],
  };
}

export function contentAccessColumn(a: ContentAccess): string {
  return toJsonColumn({
    library_ids: a.libraryIds,
    max_age: a.maxAge,
    include_unrated: a.includeUnrated,
    labels_allow: a.labelsAllow,
    labels_exclude: a.labelsExclude,
  });
}

/**
 * What a caller may see, for queries: everything, or libraries plus rules on series (age, sharing labels) that
 * cascade to their books. `series` is null when only libraries restrict.
 */
export type ContentScope = { all: true } | { all: false; libraryIds: readonly string[] | null; series: SeriesRule | null };

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
      : {
          maxAge: access.maxAge,
          includeUnrated: access.includeUnrated,
          labelsAllow: access.labelsAllow,
          labelsExclude: access.labelsExclude,
        };
  if (access.libraryIds === null && series === null) return EVERYTHING;
  return { all: false, libraryIds: access.libraryIds, series };
}

/** A user's scope from its row: admins see everything, whatever their row holds. */
export function scopeOfUser(user: { role: string; content_access: string }): ContentScope {
  return user.role === 'admin' ? EVERYTHING : scopeOf(parseContentAccess(user.content_access));
}
