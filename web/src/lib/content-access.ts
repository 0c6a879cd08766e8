import type { components } from '../api/client';
import { plural } from './format';

/** A user's access fields as the API carries them (the users API and the access preview). */
export type AccessFields = Pick<components['schemas']['User'], 'library_access' | 'age_restriction' | 'labels_allow' | 'labels_exclude'>;
export type AccessPreviewBody = components['schemas']['AccessPreview'];
export type AccessSummary = components['schemas']['AccessSummary'];

/** The access editor's form as typed: the age as its text, so that a half-typed number is not lost. */
export interface AccessDraft {
  allLibraries: boolean;
  libraryIds: string[];
  ageLimited: boolean;
  maxAge: string;
  includeUnrated: boolean;
  labelsAllow: string[];
  labelsExclude: string[];
}

/** The age limit offered when one is first chosen. */
export const DEFAULT_MAX_AGE = 12;

/**
 * The form for a user's stored access. `knownLibraryIds`: when the user sees every library, the list starts with all
 * of them ticked, so that choosing "only these" hides nothing until one is unticked.
 */
export function draftOf(access: AccessFields, knownLibraryIds: readonly string[]): AccessDraft {
  const age = access.age_restriction;
  return {
    allLibraries: access.library_access.all,
    libraryIds: access.library_access.all ? [...knownLibraryIds] : [...access.library_access.library_ids],
    ageLimited: age !== null,
    maxAge: String(age?.max_age ?? DEFAULT_MAX_AGE),
    includeUnrated: age?.include_unrated ?? false,
    labelsAllow: [...access.labels_allow],
    labelsExclude: [...access.labels_exclude],
  };
}

/** The age as typed, when it is one the server takes (a whole number from 0 to 99); otherwise null. */
export function parseMaxAge(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,2}$/.test(trimmed)) return null;
  return Number(trimmed);
}

/** The API body for a draft (PATCH /users/{id} and the preview), or null while its age is not a valid number. */
export function accessBody(draft: AccessDraft): Required<AccessPreviewBody> | null {
  let age: AccessFields['age_restriction'] = null;
  if (draft.ageLimited) {
    const maxAge = parseMaxAge(draft.maxAge);
    if (maxAge === null) return null;
    age = { max_age: maxAge, include_unrated: draft.includeUnrated };
  }
  return {
    library_access: draft.allLibraries ? { all: true } : { all: false, library_ids: [...new Set(draft.libraryIds)].sort() },
    age_restriction: age,
    labels_allow: normalizeLabels(draft.labelsAllow),
    labels_exclude: normalizeLabels(draft.labelsExclude),
  };
}

/** Whether two access settings say the same (library order and label case do not matter). */
export function sameAccess(a: AccessFields, b: AccessFields): boolean {
  const key = (x: AccessFields) =>
    JSON.stringify([
      x.library_access.all ? null : [...new Set(x.library_access.library_ids)].sort(),
      x.age_restriction,
      normalizeLabels(x.labels_allow),
      normalizeLabels(x.labels_exclude),
    ]);
  return key(a) === key(b);
}

/** A label as the server stores it: trimmed and lower-cased. */
export const normalizeLabel = (label: string): string => label.trim().toLowerCase();

/** Labels as the server stores them: trimmed, lower-cased, no empty ones or duplicates, sorted. */
export function normalizeLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map(normalizeLabel).filter((l) => l.length > 0))].sort();
}

/** The labels typed into a label field, split at commas: "Kids, family" adds two. */
export function labelsFromInput(text: string): string[] {
  return normalizeLabels(text.split(','));
}

/** "Sees 412 of 530 series in 2 of 3 libraries". */
export function summarySentence(s: AccessSummary): string {
  return `Sees ${s.series_visible} of ${plural(s.series_total, 'series', 'series')} in ${s.libraries_visible} of ${plural(
    s.libraries_total,
    'library',
    'libraries',
  )}`;
}

/** "1024 of 3003 books". */
export function booksSentence(s: AccessSummary): string {
  return `${s.books_visible} of ${plural(s.books_total, 'book')}`;
}

/**
 * A stored access in a few words, for a user's row: "all libraries", or "2 libraries · up to age 12 · 1 label
 * excluded". `libraryName` names a single library when it is the only one.
 */
export function describeAccess(access: AccessFields, libraryName?: (id: string) => string | undefined): string {
  const parts: string[] = [];
  const libraries = access.library_access;
  if (libraries.all) parts.push('all libraries');
  else if (libraries.library_ids.length === 0) parts.push('no library');
  else if (libraries.library_ids.length === 1) parts.push(libraryName?.(libraries.library_ids[0]!) ?? '1 library');
  else parts.push(plural(libraries.library_ids.length, 'library', 'libraries'));
  const age = access.age_restriction;
  if (age) parts.push(`up to age ${age.max_age}${age.include_unrated ? '' : ', rated only'}`);
  if (access.labels_allow.length > 0) parts.push(`${plural(access.labels_allow.length, 'label')} allowed`);
  if (access.labels_exclude.length > 0) parts.push(`${plural(access.labels_exclude.length, 'label')} excluded`);
  return parts.join(' · ');
}

/** Whether nothing is restricted: every library, no age limit, no label rule. */
export function isUnrestricted(access: AccessFields): boolean {
  return (
    access.library_access.all && access.age_restriction === null && access.labels_allow.length === 0 && access.labels_exclude.length === 0
  );
}

/** Whether nothing limits what the signed-in user sees (the server says so: `restricted` on /auth/me). */
export const seesEverything = (me: { restricted: boolean } | undefined): boolean => me !== undefined && !me.restricted;

/** Said where a list is empty for someone who may not see everything. */
export const NOTHING_YOU_CAN_SEE = 'Nothing here you can see. An administrator decides which libraries and ratings your account shows.';
