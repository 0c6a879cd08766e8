import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { SeriesView } from '../../catalog/index.js';
import { WantToReadParams } from './schemas.js';
import type { WantToReadService } from './service.js';

const tags = ['series'];

export function registerWantToReadRoutes(app: App, wantToRead: WantToReadService): void {
  app.route({
    method: 'GET',
    url: '/me/want-to-read',
    config: { permission: 'series-read' },
    schema: {
      summary: "The caller's want-to-read series",
      description: 'Newest first. Series the caller may no longer see (or deleted ones) are left out while they stay so.',
      tags,
      querystring: PaginationQuery,
      response: { 200: paginated(SeriesView), 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await wantToRead.list(callerOf(req), page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'PUT',
    url: '/me/want-to-read/:series_id',
    config: { permission: 'series-read' },
    schema: {
      summary: 'Want to read a series',
      description: 'Puts the series on the caller’s want-to-read list; again changes nothing. 404 for a series the caller may not see.',
      tags,
      params: WantToReadParams,
      response: { 204: z.null(), 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req, reply) => {
      await wantToRead.add(callerOf(req), req.params.series_id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/me/want-to-read/:series_id',
    config: { permission: 'series-read' },
    schema: {
      summary: 'No longer want to read a series',
      description: 'Takes the series off the caller’s want-to-read list; one that is not on it is no error.',
      tags,
      params: WantToReadParams,
      response: { 204: z.null(), 400: ErrorBody },
    },
    handler: async (req, reply) => {
      await wantToRead.remove(callerOf(req), req.params.series_id);
      return reply.code(204).send(null);
    },
  });
}
