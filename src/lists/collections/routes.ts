import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import { sendImage } from '../../http/send-image.js';
import type { App } from '../../http/types.js';
import { BROWSE_COLLECTIONS, callerOf } from '../../identity/index.js';
import { SeriesView } from '../../catalog/index.js';
import {
  CollectionCreate,
  CollectionListQuery,
  CollectionSeriesAdd,
  CollectionSeriesOrder,
  CollectionSeriesParams,
  CollectionUpdate,
  CollectionView,
} from './schemas.js';
import type { CollectionsService } from './service.js';

const tags = ['collections'];
const CollectionPage = paginated(CollectionView);

const WHO_SEES =
  'A private collection is its owner’s alone (to anyone else, administrators included, it does not exist); a shared one is everyone’s. ' +
  'Each viewer sees only the series it may see (library access, age limit, sharing labels): in counts, covers and series lists too; ' +
  'a shared collection none of whose series the viewer may see is hidden from it.';
const SHARED_RIGHTS =
  'One’s own collection needs only the route’s permission; a shared one (creating it, sharing or unsharing one, changing it) needs collections-write, deleting it collections-delete.';
const HIDDEN_STAY = 'Series the caller may not see stay in the collection, in their places.';

export function registerCollectionRoutes(app: App, collections: CollectionsService): void {
  app.route({
    method: 'GET',
    url: '/collections',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'List collections',
      description: `The shared collections and the caller's own, by name. ${WHO_SEES}`,
      tags,
      querystring: CollectionListQuery,
      response: { 200: CollectionPage, 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await collections.list(
        callerOf(req),
        { search: req.query.search, library_id: req.query.library_id ?? req.query.libraryId },
        page,
      );
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/collections',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Create a collection',
      description: `The caller's own, or shared with \`shared: true\`. ${SHARED_RIGHTS} A name another collection of the same owner (or another shared one) has, ignoring case, is a 409.`,
      tags,
      body: CollectionCreate,
      response: { 201: CollectionView, 400: ErrorBody, 403: ErrorBody, 409: ErrorBody },
    },
    handler: async (req, reply) => reply.code(201).send(await collections.create(callerOf(req), req.body)),
  });

  app.route({
    method: 'GET',
    url: '/collections/:id',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Collection details',
      description: WHO_SEES,
      tags,
      params: IdParams,
      response: { 200: CollectionView, 400: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => collections.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'PATCH',
    url: '/collections/:id',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Update a collection',
      description: `Any of name, summary, ordered, shared, cover_series_id and series_ids (which replaces the series). ${SHARED_RIGHTS} ${HIDDEN_STAY}`,
      tags,
      params: IdParams,
      body: CollectionUpdate,
      response: { 200: CollectionView, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
    },
    handler: (req) => collections.update(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'DELETE',
    url: '/collections/:id',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Delete a collection',
      description: `The series stay; only the collection goes. ${SHARED_RIGHTS}`,
      tags,
      params: IdParams,
      response: { 204: z.null(), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
    handler: async (req, reply) => {
      await collections.remove(callerOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'GET',
    url: '/collections/:id/series',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Series of a collection',
      description: 'In the collection’s order (by name when it is not ordered); only the series the caller may see.',
      tags,
      params: IdParams,
      querystring: PaginationQuery,
      response: { 200: paginated(SeriesView), 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await collections.series(callerOf(req), req.params.id, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/collections/:id/series',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Add series to a collection',
      description: `At \`position\` among the series the caller sees (default the end); series already in it stay where they are. ${SHARED_RIGHTS}`,
      tags,
      params: IdParams,
      body: CollectionSeriesAdd,
      response: { 200: CollectionView, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => collections.addSeries(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'DELETE',
    url: '/collections/:id/series/:series_id',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Remove a series from a collection',
      description: `404 when the collection holds no such series the caller may see. ${SHARED_RIGHTS}`,
      tags,
      params: CollectionSeriesParams,
      response: { 204: z.null(), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
    handler: async (req, reply) => {
      await collections.removeSeries(callerOf(req), req.params.id, req.params.series_id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'PUT',
    url: '/collections/:id/series/order',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Reorder the series of a collection',
      description:
        'series_ids names every series of the collection the caller sees, once each (else 400 with `details.series_ids` for ids that are not ' +
        `its series, \`missing\` and \`repeated\`). The order shows when the collection is ordered. ${HIDDEN_STAY} ${SHARED_RIGHTS}`,
      tags,
      params: IdParams,
      body: CollectionSeriesOrder,
      response: { 200: CollectionView, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => collections.reorder(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'GET',
    url: '/collections/:id/thumbnail',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Collection cover image',
      description: "The chosen series' cover (cover_series_id), else the first series'; of the series the caller may see. ETag and 304.",
      tags,
      params: IdParams,
      response: { 200: z.any(), 304: z.null(), 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req, reply) => sendImage(req, reply, await collections.thumbnail(callerOf(req), req.params.id, req.headers.accept)),
  });

  app.route({
    method: 'GET',
    url: '/series/:id/collections',
    config: { permission: BROWSE_COLLECTIONS },
    schema: {
      summary: 'Collections holding a series',
      description: `The collections the caller sees that hold the series, by name. ${WHO_SEES}`,
      tags,
      params: IdParams,
      querystring: PaginationQuery,
      response: { 200: CollectionPage, 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await collections.ofSeries(callerOf(req), req.params.id, page);
      return toPage(req.url, page, total, data);
    },
  });
}
