import { describe, expect, it } from 'vitest';
import { buildCondition } from './filters';
import { validateLibrarySearch } from './library-search';

const search = (raw: Record<string, unknown>) => validateLibrarySearch(raw);
const LIBRARY = '0b7e5c1e-8f1a-4d0e-9a53-6c1f7a2f0c11';

describe('buildCondition: filter chips compiled to the spec condition tree', () => {
  it('is undefined when nothing narrows the list (all libraries, no chips)', () => {
    expect(buildCondition(search({}), {})).toBeUndefined();
  });

  it('is the library leaf alone on a library page without chips', () => {
    expect(buildCondition(search({}), { libraryId: LIBRARY })).toEqual({ libraryId: { operator: 'is', value: LIBRARY } });
  });

  it('makes a single chip a plain leaf', () => {
    expect(buildCondition(search({ genre: 'Fantasy' }), {})).toEqual({ genre: { operator: 'is', value: 'Fantasy' } });
  });

  it('ORs the values of one field', () => {
    expect(buildCondition(search({ genre: ['Fantasy', 'Horror'] }), {})).toEqual({
      anyOf: [{ genre: { operator: 'is', value: 'Fantasy' } }, { genre: { operator: 'is', value: 'Horror' } }],
    });
  });

  it('ANDs different fields by default, and ORs them when match=any', () => {
    const fields = { publisher: 'Image', read: ['unread', 'in_progress'] };
    expect(buildCondition(search(fields), {})).toEqual({
      allOf: [
        { publisher: { operator: 'is', value: 'Image' } },
        { anyOf: [{ readStatus: { operator: 'is', value: 'unread' } }, { readStatus: { operator: 'is', value: 'in_progress' } }] },
      ],
    });
    expect(buildCondition(search({ ...fields, match: 'any' }), {})).toEqual({
      anyOf: [
        { publisher: { operator: 'is', value: 'Image' } },
        { anyOf: [{ readStatus: { operator: 'is', value: 'unread' } }, { readStatus: { operator: 'is', value: 'in_progress' } }] },
      ],
    });
  });

  it('always keeps the library, even when the chips are OR-ed', () => {
    expect(buildCondition(search({ genre: 'Fantasy', language: 'ja', match: 'any' }), { libraryId: LIBRARY })).toEqual({
      allOf: [
        { libraryId: { operator: 'is', value: LIBRARY } },
        { anyOf: [{ genre: { operator: 'is', value: 'Fantasy' } }, { language: { operator: 'is', value: 'ja' } }] },
      ],
    });
  });

  it('drops the chips books cannot be filtered by (status, publisher, language) in the books view', () => {
    expect(buildCondition(search({ view: 'books', publisher: 'Image', status: 'Ended', tag: 'colour' }), {})).toEqual({
      tag: { operator: 'is', value: 'colour' },
    });
  });
});
