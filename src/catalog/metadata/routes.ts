import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams, Uuid } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { z } from 'zod';
import { callerOf } from '../../identity/index.js';
import { BookBulkUpdate, BulkResult, changeOf, HistoryEntryView, LOCKS, SeriesBulkUpdate, UndoQuery, UndoResult } from './schemas.js';
import type { MetadataService } from './service.js';
import { BookRenumber, renumbering, RenumberResult } from './renumber.js';

const errors = { 400: ErrorBody, 404: ErrorBody };

/** Bulk edits, history and undo; PATCH /series/{id} and /books/{id} are registered with their features' routes. */
export function registerMetadataRoutes(app: App, metadata: MetadataService): void {
  app.route({
    method: 'PATCH',
    url: '/series',
    config: { permission: 'series-write' },
    schema: {
      summary: 'Edit many series at once',
      description: `The same change on every series named, in one transaction and one history group (undone as a whole). ${LOCKS}`,
      tags: ['series'],
      body: SeriesBulkUpdate,
      response: { 200: BulkResult, ...errors },
    },
    handler: (req) => {
      const { ids, changes, add, remove } = req.body;
      return metadata.edit(callerOf(req), 'series', ids, { ...changeOf(changes), add, remove });
    },
  });

  app.route({
    method: 'PATCH',
    url: '/books',
    config: { permission: 'books-write' },
    schema: {
      summary: 'Edit many books at once',
      description: `The same change on every book named, in one transaction and one history group (undone as a whole). ${LOCKS}`,
      tags: ['books'],
      body: BookBulkUpdate,
      response: { 200: BulkResult, ...errors },
    },
    handler: (req) => {
      const { ids, changes, add, remove } = req.body;
      return metadata.edit(callerOf(req), 'book', ids, { ...changeOf(changes), add, remove });
    },
  });

  app.route({
    method: 'POST',
    url: '/books/renumber',
    config: { permission: 'books-write' },
    schema: {
      summary: 'Renumber books',
      description:
        'The books in the order given get the numbers start, start + step, … (`number` and `number_sort`, both locked), in ' +
        'one transaction and one history group (undone as a whole, every number and lock back as it was).',
      tags: ['books'],
      body: BookRenumber,
      response: { 200: RenumberResult, ...errors },
    },
    handler: (req) => metadata.editEach(callerOf(req), 'book', renumbering(req.body)),
  });

  const history = (url: string, type: 'series' | 'book', permission: 'series-read' | 'books-read') =>
    app.route({
      method: 'GET',
      url,
      config: { permission },
      schema: {
        summary: type === 'series' ? "A series' metadata history" : "A book's metadata history",
        description: 'Every change of an editable field, newest first: who, when, before and after, locks, person or scan.',
        tags: [type === 'series' ? 'series' : 'books'],
        params: IdParams,
        querystring: PaginationQuery,
        response: { 200: paginated(HistoryEntryView), ...errors },
      },
      handler: async (req) => {
        const page = pageRequest(req.query);
        const { total, data } = await metadata.history(callerOf(req), type, req.params.id, { offset: page.offset, limit: page.pageSize });
        return toPage(req.url, page, total, data);
      },
    });
  history('/series/:id/history', 'series', 'series-read');
  history('/books/:id/history', 'book', 'books-read');

  app.route({
    method: 'POST',
    url: '/history/:entry_id/undo',
    config: { permission: 'series-read' },
    schema: {
      summary: 'Undo a metadata change',
      description:
        "Restores every value and lock of the entry's group (a bulk change as a whole) to what it was before, recorded as a new group. " +
        'A cover entry (field `cover`) puts the previous cover back. Needs series-write for a series entry, books-write for a ' +
        'book entry. 409 when already undone, or when the cover to restore has lost its image.',
      tags: ['series', 'books'],
      params: z.object({ entry_id: Uuid }),
      querystring: UndoQuery,
      response: { 200: UndoResult, 403: ErrorBody, 409: ErrorBody, ...errors },
    },
    handler: (req) => metadata.undo(callerOf(req), req.params.entry_id, req.query.only_entry === 'true'),
  });
}
