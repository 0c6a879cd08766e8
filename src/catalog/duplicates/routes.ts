import { callerOf } from '../../identity/index.js';
import { z } from 'zod';
import { PaginationQuery, pageRequest, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { TaskView, taskView } from '../../operations/index.js';
import type { DuplicatesService } from './service.js';

const Ref = z.object({ id: z.uuid(), name: z.string() });

const BookGroup = z
  .object({
    id: z.uuid(),
    match_type: z.literal('hash'),
    hash: z.string().describe('The SHA-256 every book of the group shares.'),
    book_count: z.number().int(),
    total_size: z.number().int(),
    books: z.array(z.object({ book_id: z.uuid(), title: z.string(), path: z.string(), size: z.number().int(), series: Ref, library: Ref })),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'BookDuplicateGroup' });

const SeriesGroup = z
  .object({
    id: z.uuid(),
    match_type: z.enum(['external_id', 'title']),
    match_key: z.string().describe('The shared external id, or the normalised title.'),
    confidence: z.enum(['high', 'possible']).describe('`high` for external_id matches, `possible` for title matches.'),
    library_id: z.uuid().nullable().describe('For title matches: the library the series share.'),
    series: z.array(
      z.object({ series_id: z.uuid(), name: z.string(), library: Ref, book_count: z.number().int(), last_updated: z.string() }),
    ),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'SeriesDuplicateGroup' });

const SeriesQuery = PaginationQuery.extend({
  matchType: z.enum(['external_id', 'title']).optional().describe('Only groups matched by this signal.'),
});

const DOC =
  'Groups are tracking records: deleting one never touches books or series, and the next duplicate scan recreates it while the duplicates still exist. Book groups: the same SHA-256 content whatever the name, library or series. Series groups: `external_id` (same upstream record, across libraries) or `title` (same normalised title — case, accents, punctuation, leading articles, years and volume suffixes ignored — within one library).';

export function registerDuplicateRoutes(app: App, duplicates: DuplicatesService): void {
  const permission = { permission: 'libraries-write' };

  app.route({
    method: 'GET',
    url: '/duplicates',
    config: permission,
    schema: {
      summary: 'List book duplicate groups',
      description: DOC,
      tags: ['duplicates'],
      querystring: PaginationQuery,
      response: { 200: paginated(BookGroup) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { items, total } = await duplicates.bookGroups(callerOf(req), page);
      return toPage(req.url, page, total, items);
    },
  });

  app.route({
    method: 'POST',
    url: '/duplicates/scan',
    config: permission,
    schema: {
      summary: 'Run one duplicate scan covering book and series detection',
      description: 'Answers 202 with the `detect_duplicates` task; while one is queued or running, that task is returned.',
      tags: ['duplicates'],
      response: { 202: TaskView },
    },
    handler: async (_req, reply) => reply.code(202).send(taskView(await duplicates.requestScan())),
  });

  app.route({
    method: 'DELETE',
    url: '/duplicates/:id',
    config: permission,
    schema: { summary: 'Remove a book group record', description: DOC, tags: ['duplicates'], params: IdParams },
    handler: async (req, reply) => {
      await duplicates.deleteBookGroup(req.params.id);
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'GET',
    url: '/duplicates/series',
    config: permission,
    schema: {
      summary: 'List series duplicate groups',
      description: DOC,
      tags: ['duplicates'],
      querystring: SeriesQuery,
      response: { 200: paginated(SeriesGroup) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { items, total } = await duplicates.seriesGroups(callerOf(req), req.query.matchType, page);
      return toPage(req.url, page, total, items);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/duplicates/series/:id',
    config: permission,
    schema: { summary: 'Remove a series group record', description: DOC, tags: ['duplicates'], params: IdParams },
    handler: async (req, reply) => {
      await duplicates.deleteSeriesGroup(req.params.id);
      return reply.code(204).send();
    },
  });
}
