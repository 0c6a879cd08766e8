import { z } from 'zod';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { Uuid } from '../../http/params.js';
import { sendImage } from '../../http/send-image.js';
import type { App } from '../../http/types.js';
import { BROWSE_COLLECTIONS, BROWSE_READ_LISTS, type Caller, callerOf, deviceHint, scopeFor } from '../../identity/index.js';
import type { BookView, SeriesView } from '../../catalog/index.js';
import type { ReadListView } from '../../lists/index.js';
import { allOf, readStatusOf } from './conditions.js';
import { collectionDto, readListDto, type ReadListDto, type TachiyomiReadProgressDto, type TachiyomiReadProgressV2Dto } from './dto.js';
import {
  KomgaListQuery,
  KomgaMulti,
  KomgaPaging,
  authorParams,
  komgaPage,
  komgaPageRequest,
  listParam,
  mapSort,
  pageOfList,
  SERIES_SORTS,
} from './paging.js';
import { EVERYTHING, type KomgaPresenter } from './presenter.js';
import { KOMGA_PROGRESS } from './progress-origin.js';
import { BookParams, hidden, komgaRoute, SeriesParams } from './route-config.js';

/** Komga ids are any string: one that is not ours (a Komga id a client kept) is a 404, as an unknown one is. */
function ours(id: string, what: string): string {
  if (!Uuid.safeParse(id).success) throw notFound(what);
  return id;
}
const IdParams = z.object({ id: z.string().max(200) });
const ListBookParams = z.object({ id: z.string().max(200), bookId: Uuid });
const ListsQuery = KomgaPaging.extend({ search: z.string().optional(), library_id: KomgaMulti });
const TachiyomiV1Update = z.object({ lastBookRead: z.number().int() });
const TachiyomiV2Update = z.object({ lastBookNumberSortRead: z.number() });

const restricted = (caller: Caller) => !scopeFor(caller).all;
/** A 404 of a lookup (an unknown or hidden list) as "nothing". */
const orNull = async <T>(work: Promise<T>): Promise<T | null> => {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) return null;
    throw err;
  }
};

/** Whether a `GET series`-style query filters (or sorts) beyond paging. */
function filters(q: Partial<KomgaListQuery>, ignore: (keyof KomgaListQuery)[] = []): boolean {
  const skip = new Set<string>(['page', 'size', 'unpaged', ...ignore]);
  return Object.entries(q).some(([k, v]) => !skip.has(k) && v !== undefined && !(Array.isArray(v) && v.length === 0));
}

/**
 * A read list's books filtered by Komga's book query parameters, in memory over the list's books (the list is
 * already the caller's view): library_id, read_status, media_status (READY: analysed without error), tag, author,
 * deleted (nothing here is deleted). Other filters are refused.
 */
function filterListBooks(books: BookView[], q: Partial<KomgaListQuery>): BookView[] {
  const unsupported = (
    [
      'status',
      'publisher',
      'language',
      'age_rating',
      'collection_id',
      'sharing_label',
      'complete',
      'search_regex',
      'released_after',
      'genre',
      'release_year',
      'search',
    ] as const
  ).filter((n) => q[n] !== undefined && !(Array.isArray(q[n]) && (q[n] as unknown[]).length === 0));
  if (unsupported.length)
    throw badRequest(
      unsupported.length > 1
        ? `Unsupported filter parameters ${unsupported.join(', ')} for read list books`
        : `Unsupported filter parameter ${unsupported.join(', ')} for read list books`,
      {
        parameters: unsupported,
      },
    );
  if (q.deleted === true || q.oneshot === true) return [];
  const libraries = new Set(listParam(q.library_id));
  const statuses = new Set(listParam(q.read_status).map(readStatusOf));
  const media = listParam(q.media_status).map((m) => m.trim().toUpperCase());
  const tags = listParam(q.tag).map((t) => t.toLowerCase());
  const authors = authorParams(q.author);
  const statusOf = (b: BookView) => (b.progress?.is_completed ? 'read' : b.progress ? 'in_progress' : 'unread');
  return books.filter(
    (b) =>
      (libraries.size === 0 || libraries.has(b.library_id)) &&
      (statuses.size === 0 || statuses.has(statusOf(b))) &&
      (media.length === 0 || media.includes(b.analysis_error === null ? 'READY' : 'ERROR')) &&
      (tags.length === 0 || b.metadata.tags.some((t) => tags.includes(t.toLowerCase()))) &&
      (authors.length === 0 ||
        authors.some((a) =>
          b.metadata.authors.some(
            (x) =>
              (a.name === '' || x.name.toLowerCase() === a.name.toLowerCase()) &&
              (a.role === null || x.role.toLowerCase() === a.role.toLowerCase()),
          ),
        )),
  );
}

/**
 * Komga's collections and read lists (and the `collection_id` series filter) over the collections and read-lists
 * services, which apply the access rules: a caller sees the lists it may see, and inside them only its series and
 * books. Read lists are always ordered here (`ordered: true`).
 */
export function registerKomgaListRoutes(app: App, komga: KomgaPresenter): void {
  const { collections, readLists, books, series } = komga.services;

  // ---- Collections ----

  app.route({
    method: 'GET',
    url: '/api/v1/collections',
    config: komgaRoute(BROWSE_COLLECTIONS),
    schema: { ...hidden, summary: 'Collections (Komga): search, library_id, 0-based pages', querystring: ListsQuery },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const search = req.query.search;
      const libraryIds = listParam(req.query.library_id);
      if (libraryIds.length <= 1) {
        const { total, data } = await collections.list(caller, { search, library_id: libraryIds[0] }, page);
        return komgaPage(
          page,
          total,
          data.map((c) => collectionDto(c, restricted(caller))),
          true,
        );
      }
      // Several libraries: those holding a series of any of them, by name.
      const byId = new Map<string, Awaited<ReturnType<typeof collections.get>>>();
      for (const libraryId of libraryIds)
        for (const c of (await collections.list(caller, { search, library_id: libraryId }, EVERYTHING)).data) byId.set(c.id, c);
      const all = [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
      return pageOfList(
        page,
        all.map((c) => collectionDto(c, restricted(caller))),
        true,
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/collections/:id',
    config: komgaRoute(BROWSE_COLLECTIONS),
    schema: { ...hidden, summary: 'One collection (Komga)', params: IdParams },
    handler: async (req) => {
      const caller = callerOf(req);
      return collectionDto(await collections.get(caller, ours(req.params.id, 'Collection')), restricted(caller));
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/collections/:id/series',
    config: komgaRoute('series-read'),
    schema: {
      ...hidden,
      summary: "Series of a collection (Komga): in the collection's order; Komga's series filters and sort apply",
      params: IdParams,
      querystring: KomgaListQuery,
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      if (!filters(req.query)) {
        const { total, data } = await collections.series(caller, ours(req.params.id, 'Collection'), page);
        return komgaPage(page, total, await komga.seriesDtos(caller, data), false);
      }
      const members = (await collections.series(caller, ours(req.params.id, 'Collection'), EVERYTHING)).data;
      const { sorted, data } = await filteredSeries(caller, members, req.query);
      return komgaPage(page, data.length, await komga.seriesDtos(caller, data.slice(page.offset, page.offset + page.pageSize)), sorted);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/collections/:id/thumbnail',
    config: komgaRoute(BROWSE_COLLECTIONS),
    schema: { ...hidden, summary: 'Collection cover (Komga): its chosen or first series cover', params: IdParams },
    handler: async (req, reply) =>
      sendImage(req, reply, await collections.thumbnail(callerOf(req), ours(req.params.id, 'Collection'), req.headers.accept)),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/series/:seriesId/collections',
    config: komgaRoute(BROWSE_COLLECTIONS),
    schema: { ...hidden, summary: "A series' collections (Komga)", params: SeriesParams },
    handler: async (req) => {
      const caller = callerOf(req);
      return (await collections.ofSeries(caller, req.params.seriesId, EVERYTHING)).data.map((c) => collectionDto(c, restricted(caller)));
    },
  });

  /**
   * The members matching Komga's series filters (and sort): the series service runs the filters over the caller's
   * catalog, and the answer keeps the members among them, in the collection's order unless a sort is given.
   */
  async function filteredSeries(
    caller: Caller,
    members: SeriesView[],
    q: Partial<KomgaListQuery>,
  ): Promise<{ sorted: boolean; data: SeriesView[] }> {
    const sort = mapSort(q.sort, SERIES_SORTS);
    const condition = await komga.seriesQueryFilter(caller, { ...q, collection_id: undefined });
    const matches = (
      await series.filter(caller, { condition: allOf(condition), fullTextSearch: q.search?.trim() || null }, sort, EVERYTHING)
    ).data;
    const memberIds = new Set(members.map((m) => m.id));
    if (sort !== undefined) return { sorted: true, data: matches.filter((s) => memberIds.has(s.id)) };
    const matchIds = new Set(matches.map((s) => s.id));
    return { sorted: false, data: members.filter((s) => matchIds.has(s.id)) };
  }

  // ---- Read lists ----

  /** The books of a list the caller sees, in list order (entries still waiting for a book are not books). */
  const listBooks = async (caller: Caller, id: string): Promise<{ list: ReadListView; books: BookView[] }> => {
    const detail = await readLists.get(caller, ours(id, 'Read list'));
    const { items, ...list } = detail;
    return { list, books: items.flatMap((i) => (i.book ? [i.book] : [])) };
  };

  const readListDtos = async (caller: Caller, lists: ReadListView[]): Promise<ReadListDto[]> => {
    const out: ReadListDto[] = [];
    for (const l of lists) {
      const found = await orNull(listBooks(caller, l.id));
      if (found)
        out.push(
          readListDto(
            found.list,
            found.books.map((b) => b.id),
            restricted(caller),
          ),
        );
    }
    return out;
  };

  app.route({
    method: 'GET',
    url: '/api/v1/readlists',
    config: komgaRoute(BROWSE_READ_LISTS),
    schema: { ...hidden, summary: 'Read lists (Komga): search, library_id, 0-based pages', querystring: ListsQuery },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const libraryIds = new Set(listParam(req.query.library_id));
      if (libraryIds.size === 0) {
        const { total, data } = await readLists.list(caller, { search: req.query.search }, page);
        return komgaPage(page, total, await readListDtos(caller, data), true);
      }
      // By library: the lists holding a book of one of them (the caller's view of each list).
      const kept: ReadListDto[] = [];
      for (const l of (await readLists.list(caller, { search: req.query.search }, EVERYTHING)).data) {
        const found = await orNull(listBooks(caller, l.id));
        if (found?.books.some((b) => libraryIds.has(b.library_id)))
          kept.push(
            readListDto(
              found.list,
              found.books.map((b) => b.id),
              restricted(caller),
            ),
          );
      }
      return pageOfList(page, kept, true);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/readlists/:id',
    config: komgaRoute(BROWSE_READ_LISTS),
    schema: { ...hidden, summary: 'One read list (Komga)', params: IdParams },
    handler: async (req) => {
      const caller = callerOf(req);
      const { list, books: shown } = await listBooks(caller, req.params.id);
      return readListDto(
        list,
        shown.map((b) => b.id),
        restricted(caller),
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/readlists/:id/books',
    config: komgaRoute('books-read'),
    schema: {
      ...hidden,
      summary: 'Books of a read list (Komga), in list order: library_id, read_status, media_status, tag, author, deleted',
      params: IdParams,
      querystring: KomgaListQuery,
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const all = filterListBooks((await listBooks(caller, req.params.id)).books, req.query);
      const slice = all.slice(page.offset, page.offset + page.pageSize);
      return komgaPage(page, all.length, await komga.bookDtos(caller, slice), false);
    },
  });

  for (const [suffix, step] of [
    ['next', 1],
    ['previous', -1],
  ] as const)
    app.route({
      method: 'GET',
      url: `/api/v1/readlists/:id/books/:bookId/${suffix}`,
      config: komgaRoute('books-read'),
      schema: { ...hidden, summary: `The ${suffix} book of a read list (Komga); 404 at either end`, params: ListBookParams },
      handler: async (req) => {
        const caller = callerOf(req);
        const shown = (await listBooks(caller, req.params.id)).books;
        const at = shown.findIndex((b) => b.id === req.params.bookId);
        if (at === -1) throw notFound('Book', { reason: 'not in the read list' });
        const neighbour = shown[at + step];
        if (!neighbour) throw notFound(step === 1 ? 'Next book' : 'Previous book');
        return komga.bookDto(caller, neighbour);
      },
    });

  app.route({
    method: 'GET',
    url: '/api/v1/readlists/:id/thumbnail',
    config: komgaRoute(BROWSE_READ_LISTS),
    schema: { ...hidden, summary: 'Read list cover (Komga): its chosen or first book cover', params: IdParams },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      const { list, books: shown } = await listBooks(caller, req.params.id);
      const cover = list.cover_book_id ?? shown[0]?.id;
      if (!cover) throw notFound('Thumbnail', { reason: 'the read list shows no book' });
      return sendImage(req, reply, await books.thumbnail(caller, cover, req.headers.accept));
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/readlists',
    config: komgaRoute(BROWSE_READ_LISTS),
    schema: { ...hidden, summary: "A book's read lists (Komga)", params: BookParams },
    handler: async (req) => {
      const caller = callerOf(req);
      return readListDtos(caller, (await readLists.ofBook(caller, req.params.bookId, EVERYTHING)).data);
    },
  });

  // Mihon's Komga tracker on a read list: v1 (Komga's: by position in the list). The v2 pair answers too, with
  // positions (1-based) as the numberSort, for clients that send every tracker call to v2.
  const trackerCounts = (shown: BookView[]) => {
    const read = shown.filter((b) => b.progress?.is_completed).length;
    const inProgress = shown.filter((b) => b.progress && !b.progress.is_completed).length;
    const continuous = shown.findIndex((b) => !b.progress?.is_completed);
    return {
      counts: {
        booksCount: shown.length,
        booksReadCount: read,
        booksUnreadCount: shown.length - read - inProgress,
        booksInProgressCount: inProgress,
      },
      continuous: continuous === -1 ? shown.length : continuous,
    };
  };
  const markFirst = async (caller: Caller, id: string, n: number, hint: ReturnType<typeof deviceHint>) => {
    const shown = (await listBooks(caller, id)).books;
    const unread = shown.slice(0, Math.max(0, n)).filter((b) => !b.progress?.is_completed);
    await komga.services.progress.markManyRead(
      caller,
      unread.map((b) => b.id),
      hint,
      KOMGA_PROGRESS,
    );
  };

  app.route({
    method: 'GET',
    url: '/api/v1/readlists/:id/read-progress/tachiyomi',
    config: komgaRoute('progress-read'),
    schema: { ...hidden, summary: 'Tracker progress of a read list (Komga, Mihon)', params: IdParams },
    handler: async (req): Promise<TachiyomiReadProgressDto> => {
      const { counts, continuous } = trackerCounts((await listBooks(callerOf(req), req.params.id)).books);
      return { ...counts, lastReadContinuousIndex: continuous };
    },
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/readlists/:id/read-progress/tachiyomi',
    config: komgaRoute('progress-write'),
    schema: { ...hidden, summary: 'Mark the first N books of a read list read (Komga, Mihon)', params: IdParams, body: TachiyomiV1Update },
    handler: async (req, reply) => {
      await markFirst(callerOf(req), req.params.id, req.body.lastBookRead, deviceHint(req));
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v2/readlists/:id/read-progress/tachiyomi',
    config: komgaRoute('progress-read'),
    schema: { ...hidden, summary: 'Tracker progress of a read list by position as numberSort (v2 form)', params: IdParams },
    handler: async (req): Promise<TachiyomiReadProgressV2Dto> => {
      const { counts, continuous } = trackerCounts((await listBooks(callerOf(req), req.params.id)).books);
      return { ...counts, lastReadContinuousNumberSort: continuous, maxNumberSort: counts.booksCount };
    },
  });

  app.route({
    method: 'PUT',
    url: '/api/v2/readlists/:id/read-progress/tachiyomi',
    config: komgaRoute('progress-write'),
    schema: {
      ...hidden,
      summary: 'Mark read the books of a read list up to a position (v2 form)',
      params: IdParams,
      body: z.union([TachiyomiV2Update, TachiyomiV1Update]),
    },
    handler: async (req, reply) => {
      const upTo = 'lastBookNumberSortRead' in req.body ? Math.floor(req.body.lastBookNumberSortRead) : req.body.lastBookRead;
      await markFirst(callerOf(req), req.params.id, upTo, deviceHint(req));
      return reply.code(204).send();
    },
  });
}

/**
 * `collection_id` on the facet routes (genres, tags, authors…): the series of that collection the caller sees; null
 * when none is asked. An id that names no collection the caller sees holds no series.
 */
export async function collectionFacetSeries(
  komga: KomgaPresenter,
  caller: Caller,
  collectionId: string | undefined,
): Promise<string[] | null> {
  if (collectionId === undefined || collectionId === '') return null;
  if (!Uuid.safeParse(collectionId).success) return [];
  return (await orNull(komga.services.collections.get(caller, collectionId)))?.series_ids ?? [];
}

/**
 * `collection_id` on `GET series` (any of the collections): the series of those collections the caller sees,
 * filtered by the other parameters, sorted as asked (by name by default). Unknown or hidden collections hold
 * nothing.
 */
export async function seriesOfCollections(
  komga: KomgaPresenter,
  caller: Caller,
  collectionIds: string[],
  q: Partial<KomgaListQuery>,
): Promise<SeriesView[]> {
  const { collections, series } = komga.services;
  const members = new Set<string>();
  for (const id of collectionIds.filter((c) => Uuid.safeParse(c).success))
    for (const s of (await orNull(collections.get(caller, id)))?.series_ids ?? []) members.add(s);
  if (members.size === 0) return [];
  const condition = await komga.seriesQueryFilter(caller, { ...q, collection_id: undefined });
  const sort = mapSort(q.sort, SERIES_SORTS);
  const matches = await series.filter(caller, { condition: allOf(condition), fullTextSearch: q.search?.trim() || null }, sort, EVERYTHING);
  return matches.data.filter((s) => members.has(s.id));
}
