import { notFound } from '../../http/errors.js';
import type { Caller } from './caller.js';
import { inScope, scopeFor, type ContentScope } from './scope.js';

/** Whatever lives in a library: a book or a series row. */
export interface InLibrary {
  library_id: string;
}

/** A book row as access needs it: its library and its series (whose rules cascade to it). */
export interface InSeries extends InLibrary {
  series_id: string;
}

/** A series row as access needs it. */
export interface SeriesInLibrary extends InLibrary {
  id: string;
}

/** Finds a book or a series by id whoever asks; AccessService decides whether the caller may see it. */
export interface CatalogLookups<Book extends InSeries, Series extends SeriesInLibrary> {
  book(id: string): Promise<Book | undefined>;
  series(id: string): Promise<Series | undefined>;
  /** Of these series ids, those that pass the scope's series rules (age, sharing labels). */
  passing(seriesIds: readonly string[], scope: ContentScope): Promise<ReadonlySet<string>>;
}

/**
 * "The book / series the caller may see": the one access-checked lookup that books, pages, progress, series
 * (and through them the feeds and the Komga layer) use. Absent and out-of-scope are the same 404, so a caller
 * cannot probe for books it does not see.
 */
export class AccessService<Book extends InSeries = InSeries, Series extends SeriesInLibrary = SeriesInLibrary> {
  constructor(private readonly lookups: CatalogLookups<Book, Series>) {}

  /** What the caller sees (for list queries). */
  scope(caller: Caller): ContentScope {
    return scopeFor(caller);
  }

  /** Of rows fetched in bulk, those the caller sees: their library, and their series passing its rules. */
  async visible<Row extends InSeries>(caller: Caller, rows: readonly Row[]): Promise<Row[]> {
    const scope = scopeFor(caller);
    if (scope.all) return [...rows];
    const inLibraries = rows.filter((r) => inScope(scope, r.library_id));
    if (!scope.series || inLibraries.length === 0) return inLibraries;
    const passing = await this.lookups.passing([...new Set(inLibraries.map((r) => r.series_id))], scope);
    return inLibraries.filter((r) => passing.has(r.series_id));
  }

  /** A present book the caller may see, or 404 NotFound. */
  async book(caller: Caller, id: string): Promise<Book> {
    return this.bookWith(caller, id, this.lookups.book);
  }

  /**
   * The same, with the book read by `lookup`: a feature that needs less of the row than the catalog's lookup
   * gives (a page request) reads only that, under the same rule.
   */
  async bookWith<Row extends InSeries>(caller: Caller, id: string, lookup: (id: string) => Promise<Row | undefined>): Promise<Row> {
    const book = await lookup(id);
    if (!book || !(await this.passes(scopeFor(caller), book.library_id, book.series_id))) throw notFound('Book');
    return book;
  }

  /** A series the caller may see, or 404 NotFound. */
  async series(caller: Caller, id: string): Promise<Series> {
    const series = await this.lookups.series(id);
    if (!series || !(await this.passes(scopeFor(caller), series.library_id, series.id))) throw notFound('Series');
    return series;
  }

  private async passes(scope: ContentScope, libraryId: string, seriesId: string): Promise<boolean> {
    if (scope.all) return true;
    if (!inScope(scope, libraryId)) return false;
    return !scope.series || (await this.lookups.passing([seriesId], scope)).has(seriesId);
  }
}
