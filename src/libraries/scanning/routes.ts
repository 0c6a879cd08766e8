import { callerOf } from '../../identity/index.js';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { TaskView } from '../../operations/index.js';
import { ScanQuery, ScanStatusView } from './schemas.js';
import type { ScanService } from './service.js';

const tags = ['scans'];
const errors = { 400: ErrorBody, 404: ErrorBody };

export function registerScanRoutes(app: App, scans: ScanService): void {
  app.route({
    method: 'POST',
    url: '/libraries/:id/scan',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Start a scan',
      description:
        "Queues a `scan_library` task and answers 202 with it. `mode` defaults to the library's scanning_config.default_mode. While a scan of the library is pending or running, the same request answers 202 with that task (no second scan is queued).",
      tags: ['libraries', ...tags],
      params: IdParams,
      querystring: ScanQuery,
      response: { 202: TaskView, ...errors },
    },
    handler: async (req, reply) => {
      const { task } = await scans.requestScan(req.params.id, req.query.mode, 'api');
      return reply.code(202).send(task);
    },
  });

  app.route({
    method: 'GET',
    url: '/libraries/:id/scan-status',
    config: { permission: 'libraries-read' },
    schema: {
      summary: 'Current scan status',
      description: 'State, mode, times and counters of the latest scan of the library.',
      tags: ['libraries', ...tags],
      params: IdParams,
      response: { 200: ScanStatusView, ...errors },
    },
    handler: (req) => scans.status(callerOf(req), req.params.id),
  });

  app.route({
    method: 'POST',
    url: '/libraries/:id/scan/cancel',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Cancel a running scan',
      description: 'Stops the pending or running scan of the library (work already committed stays). 409 when no scan is active.',
      tags: ['libraries', ...tags],
      params: IdParams,
      response: { 200: ScanStatusView, 409: ErrorBody, ...errors },
    },
    handler: (req) => scans.cancel(req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/scans/active',
    config: { permission: 'libraries-read' },
    schema: {
      summary: 'List active scans',
      description: 'Pending and running scans, oldest first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: paginated(ScanStatusView) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const all = await scans.active(callerOf(req));
      return toPage(req.url, page, all.length, all.slice(page.offset, page.offset + page.pageSize));
    },
  });

  app.route({
    method: 'POST',
    url: '/books/:id/analyze',
    config: { permission: 'books-write' },
    schema: {
      summary: 'Trigger analysis of a book',
      description: 'Queues an `analyze_book` task (202 with the task).',
      tags: ['books'],
      params: IdParams,
      response: { 202: TaskView, ...errors },
    },
    handler: async (req, reply) => reply.code(202).send(await scans.analyzeBook(req.params.id)),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/analyze',
    config: { permission: 'series-write' },
    schema: {
      summary: 'Analyze all books of a series',
      description: 'Queues an `analyze_series` task (202 with the task).',
      tags: ['series'],
      params: IdParams,
      response: { 202: TaskView, ...errors },
    },
    handler: async (req, reply) => reply.code(202).send(await scans.analyzeSeries(req.params.id)),
  });
}
