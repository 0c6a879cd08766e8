import { describe, expect, it } from 'vitest';
import { compactLibrarySearch, EMPTY_LIBRARY_SEARCH, hasFilters, validateLibrarySearch } from './library-search';

describe('validateLibrarySearch: the grid state read back from the URL', () => {
  it('gives the defaults for an empty query string', () => {
    expect(validateLibrarySearch({})).toEqual({
      view: 'series',
      sort: 'name,asc',
      q: '',
      match: 'all',
      genre: [],
      tag: [],
      status: [],
      publisher: [],
      language: [],
      read: [],
    });
  });

  it('keeps a valid sort per view and falls back on an unknown field or direction', () => {
    expect(validateLibrarySearch({ sort: 'date_added,desc' }).sort).toBe('date_added,desc');
    expect(validateLibrarySearch({ sort: 'title,desc' }).sort).toBe('name,asc');
    expect(validateLibrarySearch({ sort: 'name,sideways' }).sort).toBe('name,asc');
    expect(validateLibrarySearch({ view: 'books', sort: 'number,desc' }).sort).toBe('number,desc');
    expect(validateLibrarySearch({ view: 'books', sort: 'book_count,desc' }).sort).toBe('title,asc');
  });

  it('turns single values into lists, drops blanks and duplicates, and keeps only known read statuses', () => {
    const s = validateLibrarySearch({ genre: 'Fantasy', tag: ['a', 'a', ' ', 'b'], read: ['read', 'finished', 'unread'], q: 42 });
    expect(s.genre).toEqual(['Fantasy']);
    expect(s.tag).toEqual(['a', 'b']);
    expect(s.read).toEqual(['read', 'unread']);
    expect(s.q).toBe('42');
  });

  it('never throws on garbage', () => {
    expect(validateLibrarySearch({ view: 3, sort: {}, match: null, genre: { x: 1 } })).toEqual(EMPTY_LIBRARY_SEARCH);
  });
});

describe('compactLibrarySearch: what is written to the URL', () => {
  it('leaves defaults out, so the plain grid has a plain URL', () => {
    expect(compactLibrarySearch(EMPTY_LIBRARY_SEARCH)).toEqual({});
  });

  it('round-trips through validateLibrarySearch', () => {
    const state = validateLibrarySearch({
      view: 'books',
      sort: 'number,desc',
      q: 'dragon',
      match: 'any',
      genre: ['Fantasy'],
      read: ['unread'],
    });
    const url = compactLibrarySearch(state);
    expect(url).toEqual({ view: 'books', sort: 'number,desc', q: 'dragon', match: 'any', genre: ['Fantasy'], read: ['unread'] });
    expect(validateLibrarySearch(url as Record<string, unknown>)).toEqual(state);
  });

  it('hasFilters tells chips from sort and search', () => {
    expect(hasFilters(validateLibrarySearch({ sort: 'name,desc', q: 'x' }))).toBe(false);
    expect(hasFilters(validateLibrarySearch({ read: 'read' }))).toBe(true);
  });
});
