import { describe, expect, it } from 'vitest';
import {
  accessBody,
  booksSentence,
  describeAccess,
  draftOf,
  isUnrestricted,
  labelsFromInput,
  parseMaxAge,
  sameAccess,
  seesEverything,
  summarySentence,
  type AccessFields,
} from './content-access';

const FULL: AccessFields = { library_access: { all: true }, age_restriction: null, labels_allow: [], labels_exclude: [] };
const KIDS: AccessFields = {
  library_access: { all: false, library_ids: ['b', 'a'] },
  age_restriction: { max_age: 12, include_unrated: false },
  labels_allow: [],
  labels_exclude: ['parents-only'],
};

describe('the access editor: a stored access, its form and back', () => {
  it('a user who sees every library starts with every known library ticked, and the form says the same as what is stored', () => {
    const draft = draftOf(FULL, ['x', 'y']);
    expect(draft).toMatchObject({ allLibraries: true, libraryIds: ['x', 'y'], ageLimited: false, maxAge: '12' });
    expect(accessBody(draft)).toEqual(FULL);
    expect(sameAccess(accessBody(draft)!, FULL)).toBe(true);
  });

  it('a restricted user round-trips: libraries, age limit, labels', () => {
    const body = accessBody(draftOf(KIDS, ['a', 'b', 'c']))!;
    expect(body).toEqual({ ...KIDS, library_access: { all: false, library_ids: ['a', 'b'] } });
    expect(sameAccess(body, KIDS)).toBe(true);
  });

  it('choosing "only these" with every library ticked is a change (new libraries are no longer seen)', () => {
    const draft = { ...draftOf(FULL, ['x', 'y']), allLibraries: false };
    expect(accessBody(draft)?.library_access).toEqual({ all: false, library_ids: ['x', 'y'] });
    expect(sameAccess(accessBody(draft)!, FULL)).toBe(false);
  });

  it('an age that is not a whole number from 0 to 99 gives no body (nothing is previewed or saved)', () => {
    for (const bad of ['', '-1', '100', '1.5', 'twelve']) expect(parseMaxAge(bad)).toBeNull();
    expect(parseMaxAge(' 7 ')).toBe(7);
    expect(accessBody({ ...draftOf(FULL, []), ageLimited: true, maxAge: 'x' })).toBeNull();
    // Without an age limit the typed age does not matter.
    expect(accessBody({ ...draftOf(FULL, []), ageLimited: false, maxAge: 'x' })).toEqual(FULL);
  });

  it('labels compare as the server stores them: trimmed, lower-cased, once', () => {
    expect(labelsFromInput(' Kids, family ,,KIDS')).toEqual(['family', 'kids']);
    expect(sameAccess({ ...FULL, labels_allow: ['Kids'] }, { ...FULL, labels_allow: ['kids '] })).toBe(true);
  });
});

describe('what the screens say', () => {
  it('the preview in words', () => {
    const s = { libraries_visible: 2, libraries_total: 3, series_visible: 412, series_total: 530, books_visible: 1, books_total: 1 };
    expect(summarySentence(s)).toBe('Sees 412 of 530 series in 2 of 3 libraries');
    expect(summarySentence({ ...s, libraries_visible: 1, libraries_total: 1, series_visible: 0, series_total: 1 })).toBe(
      'Sees 0 of 1 series in 1 of 1 library',
    );
    expect(booksSentence(s)).toBe('1 of 1 book');
  });

  it("a user's access in a few words", () => {
    expect(describeAccess(FULL)).toBe('all libraries');
    expect(isUnrestricted(FULL)).toBe(true);
    expect(describeAccess(KIDS)).toBe('2 libraries · up to age 12, rated only · 1 label excluded');
    expect(isUnrestricted(KIDS)).toBe(false);
    expect(describeAccess({ ...FULL, library_access: { all: false, library_ids: ['a'] } }, () => 'Comics')).toBe('Comics');
    expect(describeAccess({ ...FULL, library_access: { all: false, library_ids: [] } })).toBe('no library');
  });

  it('sees everything when the server says the user is not restricted', () => {
    expect(seesEverything({ restricted: false })).toBe(true);
    expect(seesEverything({ restricted: true })).toBe(false);
    expect(seesEverything(undefined)).toBe(false);
  });
});
