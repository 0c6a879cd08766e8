import { callerOf } from '../../identity/index.js';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { TaskListQuery, TaskStats, TaskView } from './schemas.js';
import type { TaskService } from './service.js';

const tags = ['tasks'];

export function registerTaskRoutes(app: App, tasks: TaskService): void {
  app.route({
    method: 'GET',
    url: '/tasks',
    config: { permission: 'tasks-read' },
    schema: {
      summary: 'List background tasks',
      description: 'Newest first. Filter by status, type and library.',
      tags,
      querystring: TaskListQuery,
      response: { 200: paginated(TaskView) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { status, type, task_type, library_id } = req.query;
      const { total, data } = await tasks.list(
        callerOf(req),
        { status, type: type ?? task_type, libraryId: library_id },
        page.offset,
        page.pageSize,
      );
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'GET',
    url: '/tasks/stats',
    config: { permission: 'tasks-read' },
    schema: {
      summary: 'Task statistics',
      description: 'Counts by status and type, and the average run time of completed tasks.',
      tags,
      response: { 200: TaskStats },
    },
    handler: () => tasks.stats(),
  });

  app.route({
    method: 'GET',
    url: '/tasks/:id',
    config: { permission: 'tasks-read' },
    schema: { summary: 'Task details', tags, params: IdParams, response: { 200: TaskView, 400: ErrorBody, 404: ErrorBody } },
    handler: (req) => tasks.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'POST',
    url: '/tasks/:id/cancel',
    config: { permission: 'tasks-write' },
    schema: {
      summary: 'Cancel a task',
      description:
        'A pending task ends `cancelled` at once; a running task has its work aborted and ends `cancelled` within about 2 s. 409 when the task already ended.',
      tags,
      params: IdParams,
      response: { 200: TaskView, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
    },
    handler: (req) => tasks.cancel(callerOf(req), req.params.id),
  });
}
