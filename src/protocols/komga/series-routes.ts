import { z } from 'zod';
import type { App } from '../../http/types.js';
import { callerOf, deviceHint } from '../../identity/index.js';
import { sendImage } from '../../http/send-image.js';
import { KOMGA_PROGRESS } from './progress-origin.js';
import type { SeriesFacetField } from '../../catalog/index.js';
import { ageOf } from '../../media/metadata/age-ratings.js';
import { allOf, bookQueryCondition, seriesQueryCondition, type Node } from './conditions.js';
import {
  BOOK_SORTS,
  KomgaListQuery,
  KomgaMulti,
  KomgaPaging,
  komgaPage,
  komgaPageRequest,
  listParam,
  mapSort,
  SERIES_SORTS,
} from './paging.js';
import type { KomgaPresenter } from './presenter.js';
import { collectionFacetSeries, seriesOfCollections } from './list-routes.js';
import { hidden, komgaRoute, SeriesParams } from './route-config.js';

const RecentQuery = KomgaPaging.extend({
  library_id: KomgaMulti,
  deleted: KomgaListQuery.shape.deleted,
  oneshot: KomgaListQuery.shape.oneshot,
});
const SeriesSearchBody = z.object({ condition: z.unknown().optional(), fullTextSearch: z.string().max(500).nullish() }).nullish();
const TachiyomiV2Update = z.object({ lastBookNumberSortRead: z.number() });
const TachiyomiV1Update = z.object({ lastBookRead: z.number().int() });

/** Komga's series endpoints over the series, books and progress services. */
export function registerKomgaSeriesRoutes(app: App, komga: KomgaPresenter): void {
  const { series, books } = komga.services;

  const listSeries = async (
    req: { query: KomgaPaging },
    caller: ReturnType<typeof callerOf>,
    condition: Node | null,
    fullText: string | null,
    sort: string | undefined,
  ) => {
    const page = komgaPageRequest(req.query);
    const { total, data } = await series.filter(caller, { condition: allOf(condition), fullTextSearch: fullText }, sort, page);
    return komgaPage(page, total, await komga.seriesDtos(caller, data), sort !== undefined);
  };

  app.route({
    method: 'GET',
    url: '/api/v1/series',
    config: komgaRoute('series-read'),
    schema: { ...hidden, summary: 'Series (Komga): search, filters, sort, 0-based pages', querystring: KomgaListQuery },
    handler: async (req) => {
      const caller = callerOf(req);
      const collectionIds = listParam(req.query.collection_id);
      if (collectionIds.length > 0) {
        // The series of any of these collections (the caller's view of each), filtered and sorted as asked.
        const page = komgaPageRequest(req.query);
        const all = await seriesOfCollections(komga, caller, collectionIds, req.query);
        const slice = all.slice(page.offset, page.offset + page.pageSize);
        return komgaPage(page, all.length, await komga.seriesDtos(caller, slice), req.query.sort !== undefined);
      }
      return listSeries(
        req,
        caller,
        await komga.seriesQueryFilter(caller, req.query),
        req.query.search?.trim() || null,
        mapSort(req.query.sort, SERIES_SORTS),
      );
    },
  });

  app.route({
    method: 'POST',
    url: '/api/v1/series/list',
    config: komgaRoute('series-read'),
    schema: { ...hidden, summary: 'Series by a Komga condition body', querystring: KomgaPaging, body: SeriesSearchBody },
    handler: async (req) => {
      const caller = callerOf(req);
      return listSeries(
        req,
        caller,
        await komga.seriesBodyFilter(caller, req.body?.condition),
        req.body?.fullTextSearch?.trim() || null,
        mapSort(req.query.sort, SERIES_SORTS),
      );
    },
  });

  const recent = (url: string, summary: string, sort: string) =>
    app.route({
      method: 'GET',
      url,
      config: komgaRoute('series-read'),
      schema: { ...hidden, summary, querystring: RecentQuery },
      handler: (req) => listSeries(req, callerOf(req), seriesQueryCondition(req.query), null, sort),
    });
  recent('/api/v1/series/new', 'Newest series (Komga)', 'date_added,desc');
  recent('/api/v1/series/updated', 'Recently updated series (Komga)', 'date_updated,desc');
  recent('/api/v1/series/latest', 'Latest series (Komga)', 'date_updated,desc');

  app.route({
    method: 'GET',
    url: '/api/v1/series/release-dates',
    config: komgaRoute('series-read'),
    schema: {
      ...hidden,
      summary: 'Release years of series (Komga)',
      querystring: z.object({ library_id: KomgaMulti, collection_id: z.string().optional() }),
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const inCollection = await collectionFacetSeries(komga, caller, req.query.collection_id);
      if (inCollection?.length === 0) return [];
      return (
        await series.releaseYears(caller, { library_ids: listParam(req.query.library_id), series_ids: inCollection ?? undefined })
      ).map(String);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/series/:seriesId',
    config: komgaRoute('series-read'),
    schema: { ...hidden, summary: 'One series (Komga)', params: SeriesParams },
    handler: async (req) => {
      const caller = callerOf(req);
      return komga.seriesDto(caller, await series.get(caller, req.params.seriesId));
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/series/:seriesId/books',
    config: komgaRoute('books-read'),
    schema: {
      ...hidden,
      summary: 'Books of a series (Komga); default order metadata.numberSort',
      params: SeriesParams,
      querystring: KomgaListQuery,
    },
    handler: async (req) => {
      const caller = callerOf(req);
      await series.get(caller, req.params.seriesId);
      const page = komgaPageRequest(req.query);
      const sort = mapSort(req.query.sort, BOOK_SORTS) ?? 'number,asc';
      const { total, data } = await books.filter(
        caller,
        { condition: allOf(bookQueryCondition(req.query, req.params.seriesId)) },
        { sort },
        page,
      );
      return komgaPage(page, total, await komga.bookDtos(caller, data), true);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/series/:seriesId/thumbnail',
    config: komgaRoute('series-read'),
    schema: { ...hidden, summary: 'Series cover (Komga)', params: SeriesParams },
    handler: async (req, reply) => sendImage(req, reply, await series.thumbnail(callerOf(req), req.params.seriesId, req.headers.accept)),
  });

  const markSeries = (method: 'POST' | 'DELETE', read: boolean) =>
    app.route({
      method,
      url: '/api/v1/series/:seriesId/read-progress',
      config: komgaRoute('progress-write'),
      schema: {
        ...hidden,
        summary: read ? 'Mark every book of the series read (Komga)' : 'Mark every book of the series unread (Komga)',
        params: SeriesParams,
      },
      handler: async (req, reply) => {
        await series.markRead(callerOf(req), req.params.seriesId, read, deviceHint(req), KOMGA_PROGRESS);
        return reply.code(204).send();
      },
    });
  markSeries('POST', true);
  markSeries('DELETE', false);

  // Mihon's Komga tracker (v2: by numberSort) and older Tachiyomi builds (v1: by position).
  app.route({
    method: 'GET',
    url: '/api/v2/series/:seriesId/read-progress/tachiyomi',
    config: komgaRoute('progress-read'),
    schema: { ...hidden, summary: 'Tracker progress of a series (Komga, Mihon)', params: SeriesParams },
    handler: (req) => komga.tachiyomiProgress(callerOf(req), req.params.seriesId),
  });

  app.route({
    method: 'PUT',
    url: '/api/v2/series/:seriesId/read-progress/tachiyomi',
    config: komgaRoute('progress-write'),
    schema: { ...hidden, summary: 'Mark read up to a numberSort (Komga, Mihon)', params: SeriesParams, body: TachiyomiV2Update },
    handler: async (req, reply) => {
      await komga.tachiyomiMarkRead(callerOf(req), req.params.seriesId, req.body.lastBookNumberSortRead, deviceHint(req));
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/series/:seriesId/read-progress/tachiyomi',
    config: komgaRoute('progress-read'),
    schema: { ...hidden, summary: 'Tracker progress of a series by position (Komga v1)', params: SeriesParams },
    handler: async (req) => {
      const caller = callerOf(req);
      const progress = await komga.tachiyomiProgress(caller, req.params.seriesId);
      const order = await komga.seriesBooks(caller, req.params.seriesId);
      const continuous = order.findIndex((b) => !b.progress?.is_completed);
      const { lastReadContinuousNumberSort: _sort, maxNumberSort: _max, ...counts } = progress;
      return { ...counts, lastReadContinuousIndex: continuous === -1 ? order.length : continuous };
    },
  });

  app.route({
    method: 'PUT',
    url: '/api/v1/series/:seriesId/read-progress/tachiyomi',
    config: komgaRoute('progress-write'),
    schema: { ...hidden, summary: 'Mark the first N books read (Komga v1)', params: SeriesParams, body: TachiyomiV1Update },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      await series.get(caller, req.params.seriesId);
      const order = await komga.seriesBooks(caller, req.params.seriesId);
      const unread = order.slice(0, Math.max(0, req.body.lastBookRead)).filter((book) => !book.progress?.is_completed);
      await komga.services.progress.markManyRead(
        caller,
        unread.map((book) => book.id),
        deviceHint(req),
        KOMGA_PROGRESS,
      );
      return reply.code(204).send();
    },
  });

  // Facets of the series the caller can see (Komga's filter option lists), by the series service's facet queries.
  const FacetQuery = z.object({ library_id: KomgaMulti, collection_id: z.string().optional() });
  const facet = (
    url: string,
    summary: string,
    field: SeriesFacetField,
    present: (values: (string | null)[]) => string[] = (values) => values.filter((v): v is string => v !== null),
  ) =>
    app.route({
      method: 'GET',
      url,
      config: komgaRoute('series-read'),
      schema: { ...hidden, summary, querystring: FacetQuery },
      handler: async (req) => {
        // collection_id: the facets of that collection's series (those the caller sees).
        const caller = callerOf(req);
        const inCollection = await collectionFacetSeries(komga, caller, req.query.collection_id);
        if (inCollection?.length === 0) return [];
        return present(
          await series.facet(caller, field, { library_ids: listParam(req.query.library_id), series_ids: inCollection ?? undefined }),
        );
      },
    });
  facet('/api/v1/genres', 'Genres (Komga)', 'genre');
  facet('/api/v1/tags', 'Tags (Komga)', 'tag');
  facet('/api/v1/tags/series', 'Series tags (Komga)', 'tag');
  facet('/api/v1/publishers', 'Publishers (Komga)', 'publisher');
  facet('/api/v1/languages', 'Languages (Komga)', 'language');
  // Komga lists ages (ComicInfo ratings become ages), and "None" for series without one (or with a rating that has no age).
  facet('/api/v1/age-ratings', 'Age ratings (Komga)', 'ageRating', (values) => {
    const ages = [...new Set(values.map((v) => (v === null ? undefined : ageOf(v))))];
    return [
      ...ages
        .filter((a): a is number => a !== undefined)
        .sort((a, b) => a - b)
        .map(String),
      ...(ages.includes(undefined) ? ['None'] : []),
    ];
  });

  app.route({
    method: 'GET',
    url: '/api/v1/authors',
    config: komgaRoute('books-read'),
    schema: {
      ...hidden,
      summary: 'Authors of books (Komga)',
      querystring: z.object({
        search: z.string().optional(),
        library_id: KomgaMulti,
        series_id: KomgaMulti,
        collection_id: z.string().optional(),
      }),
    },
    handler: async (req) => {
      // collection_id: the authors of that collection's series (those the caller sees), within any series_id asked.
      const caller = callerOf(req);
      const inCollection = await collectionFacetSeries(komga, caller, req.query.collection_id);
      let seriesIds = listParam(req.query.series_id);
      if (inCollection) seriesIds = seriesIds.length ? seriesIds.filter((id) => inCollection.includes(id)) : inCollection;
      if (inCollection && seriesIds.length === 0) return [];
      return books.authors(caller, { library_ids: listParam(req.query.library_id), series_ids: seriesIds, search: req.query.search });
    },
  });
}
