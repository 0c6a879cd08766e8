import { i18n } from '@lingui/core';
import { plural, t } from '@lingui/core/macro';
import type { components } from '../api/client';

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

/** "Sees 412 of 530 series in 2 of 3 libraries" (the numbers in the interface language's digits and grouping). */
export function summarySentence(s: AccessSummary): string {
  const seriesVisible = i18n.number(s.series_visible);
  const librariesVisible = i18n.number(s.libraries_visible);
  const seriesTotal = s.series_total;
  const librariesTotal = s.libraries_total;
  return t`Sees ${seriesVisible} of ${plural(seriesTotal, { one: '# series', other: '# series' })} in ${librariesVisible} of ${plural(
    librariesTotal,
    { one: '# library', other: '# libraries' },
  )}`;
}

/** "1024 of 3003 books". */
export function booksSentence(s: AccessSummary): string {
  const booksVisible = i18n.number(s.books_visible);
  const booksTotal = s.books_total;
  return t`${booksVisible} of ${plural(booksTotal, { one: '# book', other: '# books' })}`;
}

/**
 * A stored access in a few words, for a user's row: "all libraries", or "2 libraries · up to age 12 · 1 label
 * excluded". `libraryName` names a single library when it is the only one.
 */
export function describeAccess(access: AccessFields, libraryName?: (id: string) => string | undefined): string {
  const parts: string[] = [];
  const libraries = access.library_access;
  const libraryCount = libraries.all ? 0 : libraries.library_ids.length;
  if (libraries.all) parts.push(t`all libraries`);
  else if (libraryCount === 0) parts.push(t`no library`);
  else {
    const onlyOne = libraryCount === 1 ? libraryName?.(libraries.library_ids[0]!) : undefined;
    parts.push(onlyOne ?? plural(libraryCount, { one: '# library', other: '# libraries' }));
  }
  const age = access.age_restriction;
  if (age) {
    const maxAge = age.max_age;
    parts.push(age.include_unrated ? t`up to age ${maxAge}` : t`up to age ${maxAge}, rated only`);
  }
  const allowed = access.labels_allow.length;
  const excluded = access.labels_exclude.length;
  if (allowed > 0) parts.push(plural(allowed, { one: '# label allowed', other: '# labels allowed' }));
  if (excluded > 0) parts.push(plural(excluded, { one: '# label excluded', other: '# labels excluded' }));
  return parts.join(' · ');
}

/** Whether nothing is restricted: every library, no age limit, no label rule. */
export function isUnrestricted(access: AccessFields): boolean {
  return (
    access.library_access.all && access.age_restriction === null && access.labels_allow.length === 0 && access.labels_exclude.length === 0
  );
}

// What every list shows lives apart (lib/visible-scope.ts), so that the first screen does not carry the access editor's sentences.
export { nothingYouCanSee, seesEverything } from './visible-scope';
