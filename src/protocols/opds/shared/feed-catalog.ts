import type { PageRequest } from '../../../http/pagination.js';
import type { ImageFormat, PageInfo } from '../../../media/types.js';
import { type Caller, type DeviceHint, scopeFor } from '../../../identity/index.js';
import type { BooksService, BookView, SeriesService, SeriesView } from '../../../catalog/index.js';
import type { CollectionsService, CollectionView, ReadListsService, ReadListView, WantToReadService } from '../../../lists/index.js';
import type { LibraryService, LibraryView } from '../../../libraries/index.js';
import type { ImageLookup, PagesService, ProgressOrigin, ProgressService, ProgressView, ProgressWrite } from '../../../reading/index.js';

export interface FeedServices {
  libraries: LibraryService;
  series: SeriesService;
  books: BooksService;
  pages: PagesService;
  progress: ProgressService;
  collections: CollectionsService;
  readLists: ReadListsService;
  wantToRead: WantToReadService;
}

/** A book as a feed entry needs it: the book, its series' title, and its page list (PSE type, cover size). */
export interface FeedBook {
  book: BookView;
  seriesTitle: string;
  pages: PageInfo[];
}

export interface Listing<T> {
  total: number;
  data: T[];
}

/** Libraries are few: one list call is enough for a feed. */
const MAX_LIBRARIES = 500;
/**
 * The library list (with its series and book counts, which cost a count over every book) is kept this long:
 * every reader opens the catalog root first, often, and the counts may lag a scan by this much.
 */
const LIBRARIES_TTL_MS = 10_000;

/**
 * What the OPDS feeds show, composed from the browsing services (which own visibility, ordering and progress
 * rules). The feeds never read the database themselves; everything here is a call into a service.
 */
export class FeedCatalog {
  private librariesCache: { at: number; data: Promise<LibraryView[]> } | null = null;

  constructor(private readonly services: FeedServices) {}

  /** The libraries the caller may see, by name. */
  async libraries(caller: Caller): Promise<LibraryView[]> {
    const scope = scopeFor(caller);
    // A restricted caller's libraries carry its own counts: never the shared cache.
    if (!scope.all) return (await this.services.libraries.listFor(caller, 0, MAX_LIBRARIES)).data;
    const now = Date.now();
    if (!this.librariesCache || now - this.librariesCache.at > LIBRARIES_TTL_MS) {
      const data = this.services.libraries.list(0, MAX_LIBRARIES).then((r) => r.data);
      this.librariesCache = { at: now, data };
      data.catch(() => (this.librariesCache = null));
    }
    return this.librariesCache.data;
  }

  async library(caller: Caller, id: string): Promise<LibraryView> {
    return this.services.libraries.getFor(caller, id);
  }

  series(caller: Caller, libraryId: string | undefined, page: PageRequest): Promise<Listing<SeriesView>> {
    return this.services.series.list(caller, { library_id: libraryId }, page);
  }

  oneSeries(caller: Caller, id: string): Promise<SeriesView> {
    return this.services.series.get(caller, id);
  }

  /** The series' books by number (the browsing default), with their page lists. */
  async seriesBooks(caller: Caller, series: SeriesView, page: PageRequest): Promise<Listing<FeedBook>> {
    const { total, data } = await this.services.series.books(caller, series.id, {}, page);
    return { total, data: await this.withPages(caller, data, new Map([[series.id, series.metadata.title]])) };
  }

  async recentlyAdded(caller: Caller, page: PageRequest): Promise<Listing<FeedBook>> {
    return this.expand(caller, await this.services.books.readingList(caller, 'recently_added', page));
  }

  /** Books the caller started and has not finished, latest first. */
  async keepReading(caller: Caller, page: PageRequest): Promise<Listing<FeedBook>> {
    return this.expand(caller, await this.services.books.readingList(caller, 'in_progress', page));
  }

  async onDeck(caller: Caller, page: PageRequest): Promise<Listing<FeedBook>> {
    return this.expand(caller, await this.services.books.onDeck(caller, page));
  }

  private searchSeries(caller: Caller, query: string, page: PageRequest): Promise<Listing<SeriesView>> {
    return this.services.series.search(caller, { query }, page);
  }

  private async searchBooks(caller: Caller, query: string, page: PageRequest): Promise<Listing<FeedBook>> {
    return this.expand(caller, await this.services.books.filter(caller, { fullTextSearch: query }, {}, page));
  }

  /** Search results of both feeds: matching series and books, paged with the same page; empty terms find nothing. */
  async search(caller: Caller, terms: string, page: PageRequest): Promise<{ series: Listing<SeriesView>; books: Listing<FeedBook> }> {
    if (!terms) return { series: { total: 0, data: [] }, books: { total: 0, data: [] } };
    const [series, books] = await Promise.all([this.searchSeries(caller, terms, page), this.searchBooks(caller, terms, page)]);
    return { series, books };
  }

  /** The collections the caller sees (shared ones and its own), by name. */
  collections(caller: Caller, page: PageRequest): Promise<Listing<CollectionView>> {
    return this.services.collections.list(caller, {}, page);
  }

  collection(caller: Caller, id: string): Promise<CollectionView> {
    return this.services.collections.get(caller, id);
  }

  /** A collection's series the caller sees, in the collection's order. */
  collectionSeries(caller: Caller, id: string, page: PageRequest): Promise<Listing<SeriesView>> {
    return this.services.collections.series(caller, id, page);
  }

  /** The read lists the caller sees (shared ones and its own), by name. */
  readLists(caller: Caller, page: PageRequest): Promise<Listing<ReadListView>> {
    return this.services.readLists.list(caller, {}, page);
  }

  /** A read list and a page of its books the caller sees, in list order (entries waiting for a book left out). */
  async readList(caller: Caller, id: string, page: PageRequest): Promise<{ list: ReadListView; books: Listing<FeedBook> }> {
    const { items, ...list } = await this.services.readLists.get(caller, id);
    const all = items.flatMap((i) => (i.book ? [i.book] : []));
    const slice = all.slice(page.offset, page.offset + page.pageSize);
    return { list, books: await this.expand(caller, { total: all.length, data: slice }) };
  }

  /** The caller's want-to-read shelf, newest first. */
  wantToRead(caller: Caller, page: PageRequest): Promise<Listing<SeriesView>> {
    return this.services.wantToRead.list(caller, page);
  }

  async book(caller: Caller, id: string): Promise<FeedBook> {
    const book = await this.services.books.get(caller, id);
    const [series, pages] = await Promise.all([this.services.series.get(caller, book.series_id), this.services.pages.list(caller, id)]);
    return { book, seriesTitle: series.metadata.title, pages };
  }

  /** The book alone (with the caller's progress), for the cheap checks of page streaming. */
  bookView(caller: Caller, id: string): Promise<BookView> {
    return this.services.books.get(caller, id);
  }

  /** A page image (1-based), original or resized/converted. */
  page(caller: Caller, bookId: string, n: number, options: { width?: number; format?: ImageFormat }): Promise<ImageLookup> {
    return this.services.pages.page(caller, bookId, n, options);
  }

  /** The cover at thumbnail size, always JPEG (e-readers often cannot decode WebP). */
  async bookThumbnail(caller: Caller, id: string): Promise<ImageLookup> {
    return this.services.books.thumbnail(caller, id, 'image/jpeg');
  }

  async seriesThumbnail(caller: Caller, id: string): Promise<ImageLookup> {
    return this.services.series.thumbnail(caller, id, 'image/jpeg');
  }

  /** The cover at full size as JPEG: the one a person chose, else the first page when it is an image, else the thumbnail. */
  async bookCover(caller: Caller, id: string): Promise<ImageLookup> {
    const chosen = await this.services.books.chosenCover(caller, id);
    if (chosen) return chosen;
    const pages = await this.services.pages.list(caller, id);
    if (pages[0]?.media_type.startsWith('image/')) return this.services.pages.page(caller, id, 1, { format: 'jpeg' });
    return this.bookThumbnail(caller, id);
  }

  file(caller: Caller, id: string) {
    return this.services.books.file(caller, id);
  }

  /** The caller's progress record in a book (with its device), or null before the first update. */
  async progression(caller: Caller, bookId: string): Promise<ProgressView | null> {
    const book = await this.services.books.get(caller, bookId);
    return book.progress ? this.services.progress.get(caller, bookId) : null;
  }

  updateProgress(
    caller: Caller,
    bookId: string,
    input: { current_page?: number; is_completed?: boolean },
    hint: DeviceHint,
    origin?: ProgressOrigin,
  ): Promise<ProgressView> {
    return this.services.progress.update(caller, bookId, input, hint, origin);
  }

  /** As updateProgress, telling whether the write became the position (false: older than the current one). */
  writeProgress(
    caller: Caller,
    bookId: string,
    input: { current_page?: number; is_completed?: boolean },
    hint: DeviceHint,
    origin: ProgressOrigin,
  ): Promise<ProgressWrite> {
    return this.services.progress.write(caller, bookId, input, hint, origin);
  }

  private async expand(caller: Caller, listing: Listing<BookView>): Promise<Listing<FeedBook>> {
    const titles = await this.services.series.titles(caller, [...new Set(listing.data.map((b) => b.series_id))]);
    return { total: listing.total, data: await this.withPages(caller, listing.data, titles) };
  }

  /** Each book with its series' title (else its own) and its page list (empty when it cannot be listed), in one query each. */
  private async withPages(caller: Caller, books: BookView[], titles: ReadonlyMap<string, string>): Promise<FeedBook[]> {
    const pages = await this.services.pages.listMany(
      caller,
      books.map((b) => b.id),
    );
    return books.map((book) => ({ book, seriesTitle: titles.get(book.series_id) ?? book.title, pages: pages.get(book.id) ?? [] }));
  }
}
