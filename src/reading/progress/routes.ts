import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf, deviceHint } from '../../identity/index.js';
import { ProgressEventView, ProgressListItem, ProgressRestore, ProgressUpdate, ProgressView } from './schemas.js';
import type { ProgressService } from './service.js';

const tags = ['progress'];
const errors = { 400: ErrorBody, 404: ErrorBody };

const DEVICE_NOTE =
  'Reading activity is attributed to a device: the API key when one is used, else the `X-Device-Id` request header ' +
  "(a reader app's own device identity, up to 100 characters), else a hash of the User-Agent.";

export function registerProgressRoutes(app: App, progress: ProgressService): void {
  app.route({
    method: 'GET',
    url: '/books/:id/progress',
    config: { permission: 'progress-read' },
    schema: {
      summary: "The caller's progress in a book",
      description: '404 when the book is missing or the caller has not started it.',
      tags,
      params: IdParams,
      response: { 200: ProgressView, ...errors },
    },
    handler: (req) => progress.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'PUT',
    url: '/books/:id/progress',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Update reading progress',
      description:
        'current_page must lie within 1..page_count (400 otherwise). is_completed true sets current_page to the last page and records a ' +
        'read-through; without is_completed, reaching the last page completes the book. ' +
        DEVICE_NOTE,
      tags,
      params: IdParams,
      body: ProgressUpdate,
      response: { 200: ProgressView, ...errors },
    },
    handler: (req) => progress.update(callerOf(req), req.params.id, req.body as ProgressUpdate, deviceHint(req)),
  });

  app.route({
    method: 'DELETE',
    url: '/books/:id/progress',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Clear reading progress',
      description: 'Statistics already recorded are kept.',
      tags,
      params: IdParams,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      await progress.clear(callerOf(req), req.params.id, deviceHint(req));
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/books/:id/read',
    config: { permission: 'progress-write' },
    schema: { summary: 'Mark a book read', description: DEVICE_NOTE, tags, params: IdParams, response: { 200: ProgressView, ...errors } },
    handler: (req) => progress.markRead(callerOf(req), req.params.id, deviceHint(req)),
  });

  app.route({
    method: 'POST',
    url: '/books/:id/unread',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Mark a book unread',
      description: 'Removes the progress; statistics stay.',
      tags,
      params: IdParams,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      await progress.markUnread(callerOf(req), req.params.id, deviceHint(req));
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'GET',
    url: '/progress',
    config: { permission: 'progress-read' },
    schema: {
      summary: "All of the caller's progress",
      description: 'Present books only, most recently updated first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: paginated(ProgressListItem) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await progress.list(callerOf(req), page, false);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'GET',
    url: '/progress/currently-reading',
    config: { permission: 'progress-read' },
    schema: {
      summary: 'Books the caller is reading',
      description: 'Started and not finished, most recently updated first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: paginated(ProgressListItem) },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await progress.list(callerOf(req), page, true);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'GET',
    url: '/books/:id/progress/history',
    config: { permission: 'progress-read' },
    schema: {
      summary: "The caller's position history in a book",
      description:
        'Every change of the position from any client (this API, the web app, KOReader), newest first, with its device and ' +
        'protocol. The newest is the current position (the last write the server received wins).',
      tags,
      params: IdParams,
      querystring: PaginationQuery,
      response: { 200: paginated(ProgressEventView), 404: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await progress.history(callerOf(req), req.params.id, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/books/:id/progress/restore',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Put the position back to an earlier one',
      description:
        'Sets the progress to the page and completion of an event from the history (when a device jumped to the wrong place). ' +
        'The restore is recorded as a new event. 404 for an event of another book or user; 400 for an event that cleared the progress. ' +
        DEVICE_NOTE,
      tags,
      params: IdParams,
      body: ProgressRestore,
      response: { 200: ProgressView, ...errors },
    },
    handler: (req) => progress.restore(callerOf(req), req.params.id, (req.body as ProgressRestore).event_id, deviceHint(req)),
  });
}
