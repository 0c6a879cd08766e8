import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf, deviceHint } from '../../identity/index.js';
import { listSerializerCompiler } from '../books/list-serializer.js';
import { BookView } from '../books/schemas.js';
import { sendImage } from '../../http/send-image.js';
import { SeriesBooksQuery, SeriesFilterBody, SeriesFilterQuery, SeriesListQuery, SeriesSearchBody, SeriesView } from './schemas.js';
import type { SeriesService } from './service.js';
import type { MetadataService } from '../metadata/service.js';
import { changeOf, LOCKS, SeriesUpdate, WriteBackReport } from '../metadata/schemas.js';

const tags = ['series'];
const errors = { 400: ErrorBody, 404: ErrorBody };
const SeriesPage = paginated(SeriesView);
const SeriesEditResult = SeriesView.extend({ write_back: WriteBackReport }).meta({ id: 'SeriesEditResult' });

const MarkResult = z.object({ series_id: z.string(), books_updated: z.number().int() }).meta({ id: 'SeriesMarkResult' });

export function registerSeriesRoutes(app: App, series: SeriesService, metadata: MetadataService): void {
  app.route({
    method: 'GET',
    url: '/series',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'series-read', keepWhileUnchanged: true },
    schema: { summary: 'List series', tags, querystring: SeriesListQuery, response: { 200: SeriesPage, 400: ErrorBody } },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await series.list(
        callerOf(req),
        { sort: req.query.sort, library_id: req.query.library_id ?? req.query.libraryId },
        page,
      );
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/series/list',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'series-read', keepWhileUnchanged: true },
    schema: {
      summary: 'Filtered list of series',
      description:
        'Pagination and sort in the query string; the body holds the condition tree and an optional full-text query. ' +
        "`ageRating`, `releaseYear` and `author` (a series matches when one of its present books has the author) are extensions beyond the spec's list of series fields.",
      tags,
      querystring: SeriesFilterQuery,
      body: SeriesFilterBody,
      response: { 200: SeriesPage, 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await series.filter(callerOf(req), req.body, req.query.sort, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/series/search',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'series-read', keepWhileUnchanged: true },
    schema: {
      summary: 'Full-text search of series',
      description: 'Name, title, publisher and summary; every word matches as a prefix, ignoring case and accents; best matches first.',
      tags,
      querystring: PaginationQuery,
      body: SeriesSearchBody,
      response: { 200: SeriesPage, 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await series.search(
        callerOf(req),
        { query: req.body.query, library_id: req.body.library_id ?? req.body.libraryId },
        page,
      );
      return toPage(req.url, page, total, data);
    },
  });

  const simpleList = (url: string, summary: string, description: string, run: typeof series.inProgress) =>
    app.route({
      method: 'GET',
      url,
      serializerCompiler: listSerializerCompiler,
      config: { permission: 'series-read', keepWhileUnchanged: true },
      schema: { summary, description, tags, querystring: PaginationQuery, response: { 200: SeriesPage } },
      handler: async (req) => {
        const page = pageRequest(req.query);
        const { total, data } = await run.call(series, callerOf(req), page);
        return toPage(req.url, page, total, data);
      },
    });
  simpleList(
    '/series/in-progress',
    'Series with books in progress',
    'Series where the caller has a started, unfinished book; most recently read first.',
    series.inProgress,
  );
  simpleList('/series/recently-added', 'Recently added series', 'Newest first.', series.recentlyAdded);
  simpleList('/series/recently-updated', 'Recently updated series', 'Most recently changed first.', series.recentlyUpdated);

  app.route({
    method: 'GET',
    url: '/series/:id',
    config: { permission: 'series-read' },
    schema: { summary: 'Series details', tags, params: IdParams, response: { 200: SeriesView, ...errors } },
    handler: (req) => series.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'PATCH',
    url: '/series/:id',
    config: { permission: 'series-write' },
    schema: {
      summary: 'Edit a series',
      description: `Metadata fields under the names GET shows, and sharing labels. ${LOCKS}`,
      tags,
      params: IdParams,
      body: SeriesUpdate,
      response: { 200: SeriesEditResult, ...errors },
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const { sharing_labels, ...fields } = req.body;
      const { write_back } = await metadata.edit(caller, 'series', [req.params.id], changeOf(fields));
      const view =
        sharing_labels !== undefined
          ? await series.update(caller, req.params.id, { sharing_labels })
          : await series.get(caller, req.params.id);
      return { ...view, write_back };
    },
  });

  app.route({
    method: 'GET',
    url: '/series/:id/books',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'books-read', keepWhileUnchanged: true },
    schema: {
      summary: 'Books of a series',
      description: 'Default order: number, then title.',
      tags,
      params: IdParams,
      querystring: SeriesBooksQuery,
      response: { 200: paginated(BookView), ...errors },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await series.books(callerOf(req), req.params.id, { sort: req.query.sort, order: req.query.order }, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'GET',
    url: '/series/:id/thumbnail',
    config: { permission: 'series-read' },
    schema: {
      summary: 'Series cover image',
      description: "The first book's cover (WebP when accepted, else JPEG); ETag and 304.",
      tags,
      params: IdParams,
      response: { 200: z.any(), 304: z.null(), ...errors },
    },
    handler: async (req, reply) => sendImage(req, reply, await series.thumbnail(callerOf(req), req.params.id, req.headers.accept)),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/read',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Mark the series read',
      description: 'Completes every present book (each a read-through).',
      tags,
      params: IdParams,
      response: { 200: MarkResult, ...errors },
    },
    handler: (req) => series.markRead(callerOf(req), req.params.id, true, deviceHint(req)),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/unread',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Mark the series unread',
      description: 'Removes the progress of every present book; statistics stay.',
      tags,
      params: IdParams,
      response: { 200: MarkResult, ...errors },
    },
    handler: (req) => series.markRead(callerOf(req), req.params.id, false, deviceHint(req)),
  });
}
