import { z } from 'zod';
import { ErrorBody } from '../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../http/pagination.js';
import { IdParams } from '../http/params.js';
import type { App } from '../http/types.js';
import { callerOf } from '../identity/index.js';
import { LibraryCreate, LibraryPatch, LibraryReplace, LibraryResponse, PurgeResult } from './schemas.js';
import { libraryFor } from './views.js';
import type { LibraryService } from './service.js';
import { TaskView } from '../operations/index.js';

const tags = ['libraries'];

const PurgeQuery = z.object({
  background: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Run the purge as a `purge_deleted` task and answer 202 with it.'),
});
const errors = { 400: ErrorBody, 404: ErrorBody };

export function registerLibraryRoutes(app: App, libraries: LibraryService): void {
  app.route({
    method: 'GET',
    url: '/libraries',
    config: { permission: 'libraries-read' },
    schema: { summary: 'List libraries', tags, querystring: PaginationQuery, response: { 200: paginated(LibraryResponse) } },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const caller = callerOf(req);
      const { total, data } = await libraries.listFor(caller, page.offset, page.pageSize);
      return toPage(
        req.url,
        page,
        total,
        data.map((library) => libraryFor(caller, library)),
      );
    },
  });

  app.route({
    method: 'POST',
    url: '/libraries',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Create a library',
      description:
        'The path must be absolute, an existing readable directory inside `libraries.allowed_roots` when that is configured, and must not overlap another library (identical or nested: 409). Below admin, every refused path gets the same 400 message (no hint whether it exists).',
      tags,
      body: LibraryCreate,
      response: { 201: LibraryResponse, 400: ErrorBody, 409: ErrorBody },
    },
    handler: async (req, reply) => reply.code(201).send(await libraries.create(req.body, callerOf(req))),
  });

  app.route({
    method: 'GET',
    url: '/libraries/:id',
    config: { permission: 'libraries-read' },
    schema: { summary: 'Library details', tags, params: IdParams, response: { 200: LibraryResponse, ...errors } },
    handler: async (req) => libraryFor(callerOf(req), await libraries.getFor(callerOf(req), req.params.id)),
  });

  app.route({
    method: 'PUT',
    url: '/libraries/:id',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Update a library',
      description: 'name and path are required; scanning_config fields that are sent replace the stored ones.',
      tags,
      params: IdParams,
      body: LibraryReplace,
      response: { 200: LibraryResponse, 409: ErrorBody, ...errors },
    },
    handler: (req) => libraries.replace(req.params.id, req.body, callerOf(req)),
  });

  app.route({
    method: 'PATCH',
    url: '/libraries/:id',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Partially update a library',
      tags,
      params: IdParams,
      body: LibraryPatch,
      response: { 200: LibraryResponse, 409: ErrorBody, ...errors },
    },
    handler: (req) => libraries.patch(req.params.id, req.body, callerOf(req)),
  });

  app.route({
    method: 'DELETE',
    url: '/libraries/:id',
    config: { permission: 'libraries-delete' },
    schema: {
      summary: 'Delete a library',
      description:
        "Cancels its running scan and removes its series, books and users' current progress in them; reading statistics are kept.",
      tags,
      params: IdParams,
      response: { 204: z.null().describe('Deleted'), ...errors },
    },
    handler: async (req, reply) => {
      await libraries.delete(req.params.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/libraries/:id/purge-deleted',
    config: { permission: 'libraries-delete' },
    schema: {
      summary: 'Purge soft-deleted books',
      description:
        "Permanently removes the library's soft-deleted books (and users' current progress in them) and the soft-deleted series left without books. Statistics are kept. Answers 200 with the counts once done; with `background=true` it queues a `purge_deleted` task instead and answers 202 with it (the counts become the task's result; while one is pending or running, the same request answers with that task).",
      tags,
      params: IdParams,
      querystring: PurgeQuery,
      response: { 200: PurgeResult, 202: TaskView, ...errors },
    },
    handler: async (req, reply) => {
      if (req.query.background) return reply.code(202).send(await libraries.requestPurge(req.params.id));
      return reply.code(200).send(await libraries.purgeDeleted(req.params.id));
    },
  });

  app.route({
    method: 'GET',
    url: '/libraries/:id/thumbnail',
    config: { permission: 'libraries-read' },
    schema: {
      summary: 'Library cover image',
      description: 'The cover of the most recently added series; a generated image (SVG) when the library has none.',
      tags,
      params: IdParams,
      response: { 200: z.any().describe('Image bytes'), ...errors },
    },
    handler: async (req, reply) => {
      const image = await libraries.thumbnail(callerOf(req), req.params.id);
      return reply.header('content-type', image.mediaType).header('cache-control', 'private, max-age=60').send(image.data);
    },
  });
}
