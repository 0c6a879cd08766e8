import type { PageRequest } from '../../http/pagination.js';
import { numberSortOf } from '../../media/metadata/metadata-values.js';
import type { Caller, DeviceHint } from '../../identity/index.js';
import type { PageInfo } from '../../media/types.js';
import type { BooksService, BookView, MetadataService, SeriesService, SeriesView } from '../../catalog/index.js';
import type { CollectionsService, ReadListsService } from '../../lists/index.js';
import type { LibraryService } from '../../libraries/index.js';
import type { PagesService, ProgressService } from '../../reading/index.js';
import {
  conditionMentions,
  needsAgeRatings,
  seriesBodyCondition,
  seriesQueryCondition,
  type KomgaFilterContext,
  type Node,
} from './conditions.js';
import {
  bookDto,
  isDivinaCompatible,
  seriesDto,
  type AuthorDto,
  type BookDto,
  type BookPlace,
  type SeriesBooksAggregate,
  type SeriesDto,
  type TachiyomiReadProgressV2Dto,
} from './dto.js';
import { UNPAGED_LIMIT, type KomgaListQuery } from './paging.js';
import { KOMGA_PROGRESS } from './progress-origin.js';
import { chunks } from '../../util/chunks.js';

export interface KomgaServices {
  series: SeriesService;
  books: BooksService;
  pages: PagesService;
  progress: ProgressService;
  libraries: LibraryService;
  collections: CollectionsService;
  readLists: ReadListsService;
  metadata: MetadataService;
}

/** One page holding everything (a series' books, facets). */
export const EVERYTHING: PageRequest = { page: 1, pageSize: UNPAGED_LIMIT, offset: 0 };
/** Conditions hold at most 100 leaves: id lists are sent in chunks. */
const ID_CHUNK = 90;

const distinct = <T>(items: T[]): T[] => [...new Set(items)];
const byText = (a: string, b: string) => a.localeCompare(b);

/**
 * The Komga API's view of our catalog: it calls the series, books, pages and progress services (which own the
 * rules, permissions scope and SQL) and assembles Komga's DTOs from their results. Per request it caches what
 * several DTOs share (series titles, the order of a series' books).
 */
export class KomgaPresenter {
  constructor(readonly services: KomgaServices) {}

  /** A series' present books in reading order (number, then title): what Komga's `number` counts. */
  async seriesBooks(caller: Caller, seriesId: string): Promise<BookView[]> {
    return (await this.services.books.list(caller, { series_id: seriesId }, EVERYTHING)).data;
  }

  /** Books of many series at once, in reading order within each series (one query per 90 series). */
  private async booksOfSeries(caller: Caller, seriesIds: string[]): Promise<BookView[]> {
    const out: BookView[] = [];
    for (const ids of chunks(distinct(seriesIds), ID_CHUNK)) {
      const condition = { anyOf: ids.map((id) => ({ seriesId: { operator: 'is', value: id } })) };
      out.push(...(await this.services.books.filter(caller, { condition }, { sort: 'number' }, EVERYTHING)).data);
    }
    return out;
  }

  /** Position (1-based, in reading order) and numberSort (the number's value, else the position) of each book. */
  private async places(caller: Caller, books: BookView[]): Promise<Map<string, BookPlace>> {
    const places = new Map<string, BookPlace>();
    const all = await this.booksOfSeries(
      caller,
      books.map((b) => b.series_id),
    );
    const bySeries = new Map<string, BookView[]>();
    for (const b of all) bySeries.set(b.series_id, [...(bySeries.get(b.series_id) ?? []), b]);
    for (const list of bySeries.values()) {
      list.forEach((b, i) => places.set(b.id, { position: i + 1, numberSort: b.metadata.number_sort ?? numberSortOf(b.number) ?? i + 1 }));
    }
    return places;
  }

  async bookDtos(caller: Caller, books: BookView[]): Promise<BookDto[]> {
    if (books.length === 0) return [];
    const epubIds = books.filter((b) => b.format === 'epub').map((b) => b.id);
    const [titles, places, epubPages] = await Promise.all([
      this.services.series.titles(caller, distinct(books.map((b) => b.series_id))),
      this.places(caller, books),
      epubIds.length > 0 ? this.services.pages.listMany(caller, epubIds) : new Map<string, PageInfo[]>(),
    ]);
    return books.map((b) =>
      bookDto(
        b,
        titles.get(b.series_id) ?? '',
        places.get(b.id) ?? { position: 1, numberSort: b.metadata.number_sort ?? numberSortOf(b.number) ?? 1 },
        isDivinaCompatible(b.format, epubPages.get(b.id) ?? []),
      ),
    );
  }

  /**
   * A book's pages as Komga lists them: an EPUB's pages only when it is DiViNa-compatible (image pages), none
   * for a text EPUB, whose chapters Komga leaves to EPUB readers (they download the file).
   */
  async pages(caller: Caller, bookId: string): Promise<PageInfo[]> {
    const book = await this.services.books.get(caller, bookId);
    const pages = await this.services.pages.list(caller, bookId);
    return book.format === 'epub' && !isDivinaCompatible(book.format, pages) ? [] : pages;
  }

  async bookDto(caller: Caller, book: BookView): Promise<BookDto> {
    return (await this.bookDtos(caller, [book]))[0]!;
  }

  /** Series DTOs with `booksMetadata` aggregated from their books (authors, tags, earliest release year). */
  async seriesDtos(caller: Caller, series: SeriesView[]): Promise<SeriesDto[]> {
    if (series.length === 0) return [];
    const books = await this.booksOfSeries(
      caller,
      series.map((s) => s.id),
    );
    const aggregates = new Map<string, { authors: Map<string, AuthorDto>; tags: Set<string>; releaseYear: number | null }>();
    for (const b of books) {
      const a = aggregates.get(b.series_id) ?? { authors: new Map(), tags: new Set(), releaseYear: null };
      for (const author of b.metadata.authors) a.authors.set(`${author.name}\u0000${author.role}`, author);
      for (const tag of b.metadata.tags) a.tags.add(tag);
      if (b.metadata.year !== null && (a.releaseYear === null || b.metadata.year < a.releaseYear)) a.releaseYear = b.metadata.year;
      aggregates.set(b.series_id, a);
    }
    return series.map((s) => {
      const a = aggregates.get(s.id);
      const aggregate: SeriesBooksAggregate = a
        ? { authors: [...a.authors.values()], tags: [...a.tags].sort(byText), releaseYear: a.releaseYear }
        : { authors: [], tags: [], releaseYear: null };
      return seriesDto(s, aggregate);
    });
  }

  async seriesDto(caller: Caller, series: SeriesView): Promise<SeriesDto> {
    return (await this.seriesDtos(caller, [series]))[0]!;
  }

  /** The book before (-1) or after (+1) this one in its series; 404 at either end. */
  async neighbour(caller: Caller, bookId: string, step: 1 | -1): Promise<BookDto> {
    return this.bookDto(caller, await this.services.books.neighbour(caller, bookId, step));
  }

  /** What translating Komga's filters needs from the catalog; the age ratings only when a filter uses them. */
  private async filterContext(caller: Caller, ageRatings: boolean): Promise<KomgaFilterContext> {
    return { ageRatings: ageRatings ? await this.services.series.facet(caller, 'ageRating') : [] };
  }

  /** `GET series` query filters as our condition. */
  async seriesQueryFilter(caller: Caller, query: Partial<KomgaListQuery>): Promise<Node | null> {
    return seriesQueryCondition(query, await this.filterContext(caller, needsAgeRatings(query)));
  }

  /** `POST series/list` condition body as ours. */
  async seriesBodyFilter(caller: Caller, raw: unknown): Promise<Node | null> {
    return seriesBodyCondition(raw, await this.filterContext(caller, conditionMentions(raw, 'ageRating')));
  }

  /** Mihon's tracker view of a series: counts, and how far the caller has read without a gap (by numberSort). */
  async tachiyomiProgress(caller: Caller, seriesId: string): Promise<TachiyomiReadProgressV2Dto> {
    const series = await this.services.series.get(caller, seriesId);
    const books = await this.numbered(caller, seriesId);
    let lastRead = 0;
    for (const { book, numberSort } of books) {
      if (!book.progress?.is_completed) break;
      lastRead = numberSort;
    }
    return {
      booksCount: series.book_count,
      booksReadCount: series.books_read_count,
      booksUnreadCount: series.books_unread_count,
      booksInProgressCount: series.books_in_progress_count,
      lastReadContinuousNumberSort: lastRead,
      maxNumberSort: books.reduce((max, b) => Math.max(max, b.numberSort), 0),
    };
  }

  /** Marks read every book of the series whose numberSort is at most `upTo` (those not finished yet). */
  async tachiyomiMarkRead(caller: Caller, seriesId: string, upTo: number, hint: DeviceHint): Promise<void> {
    await this.services.series.get(caller, seriesId);
    const unread = (await this.numbered(caller, seriesId)).filter(
      ({ book, numberSort }) => numberSort <= upTo && !book.progress?.is_completed,
    );
    await this.services.progress.markManyRead(
      caller,
      unread.map(({ book }) => book.id),
      hint,
      KOMGA_PROGRESS,
    );
  }

  private async numbered(caller: Caller, seriesId: string): Promise<{ book: BookView; numberSort: number }[]> {
    return (await this.seriesBooks(caller, seriesId))
      .map((book, i) => ({ book, numberSort: numberSortOf(book.number) ?? i + 1 }))
      .sort((a, b) => a.numberSort - b.numberSort);
  }
}
