import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { Explanation } from './schemas.js';
import type { ExplainService } from './service.js';

const PathQuery = z.object({
  path: z.string().min(1).max(4096).describe('A path relative to the library folder (or absolute, inside it).'),
});

/** The explainer: why a file is (or is not) a book, and why the book looks as it does. */
export function registerExplainRoutes(app: App, explain: ExplainService): void {
  app.route({
    method: 'GET',
    url: '/books/:id/explain',
    config: { permission: 'books-read' },
    schema: {
      summary: 'Why this book is what it is',
      description:
        "What the last scan decided about the book's file and why, where its title, number and series came from (with each source's value), the series rule, moves and duplicates, in data and in sentences.",
      tags: ['books'],
      params: IdParams,
      response: { 200: Explanation, 404: ErrorBody },
    },
    handler: async (req) => explain.book(callerOf(req), req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/libraries/:id/explain',
    config: { permission: 'libraries-write' },
    schema: {
      summary: 'Why a file is (or is not) in the library',
      description:
        'Explains any path under the library: a book, a soft-deleted book, a file the library rules leave out (hidden, excluded by which glob, not a book file), a file still being written or waiting for the quiet period, or nothing there.',
      tags: ['libraries'],
      params: IdParams,
      querystring: PathQuery,
      response: { 200: Explanation, 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req) => explain.path(callerOf(req), req.params.id, req.query.path),
  });
}
