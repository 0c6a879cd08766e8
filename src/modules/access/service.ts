import { notFound } from '../../http/errors.js';
import type { Caller } from '../auth/caller.js';
import { inScope, libraryScopeFor, type LibraryScope } from './scope.js';

/** Whatever lives in a library: a book or a series row. */
export interface InLibrary {
  library_id: string;
}

/** Finds a book or a series by id whoever asks; AccessService decides whether the caller may see it. */
export interface CatalogLookups<Book extends InLibrary, Series extends InLibrary> {
  book(id: string): Promise<Book | undefined>;
  series(id: string): Promise<Series | undefined>;
}

/**
 * "The book / series the caller may see": the one access-checked lookup that books, pages, progress, series
 * (and through them the feeds and the Komga layer) use. Absent and out-of-scope are the same 404, so a caller
 * cannot probe for books in libraries it does not see.
 */
export class AccessService<Book extends InLibrary = InLibrary, Series extends InLibrary = InLibrary> {
  constructor(private readonly lookups: CatalogLookups<Book, Series>) {}

  /** The libraries the caller sees (for list queries). */
  scope(caller: Caller): LibraryScope {
    return libraryScopeFor(caller);
  }

  /** Whether the caller sees this library's books and series (for rows fetched in bulk). */
  sees(caller: Caller, libraryId: string): boolean {
    return inScope(libraryScopeFor(caller), libraryId);
  }

  /** A present book the caller may see, or 404 NotFound. */
  async book(caller: Caller, id: string): Promise<Book> {
    return this.bookWith(caller, id, this.lookups.book);
  }

  /**
   * The same, with the book read by `lookup`: a feature that needs less of the row than the catalog's lookup
   * gives (a page request) reads only that, under the same rule.
   */
  async bookWith<Row extends InLibrary>(caller: Caller, id: string, lookup: (id: string) => Promise<Row | undefined>): Promise<Row> {
    const book = await lookup(id);
    if (!book || !inScope(libraryScopeFor(caller), book.library_id)) throw notFound('Book');
    return book;
  }

  /** A series the caller may see, or 404 NotFound. */
  async series(caller: Caller, id: string): Promise<Series> {
    const series = await this.lookups.series(id);
    if (!series || !inScope(libraryScopeFor(caller), series.library_id)) throw notFound('Series');
    return series;
  }
}
