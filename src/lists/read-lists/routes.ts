import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, badRequest } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { BROWSE_READ_LISTS, callerOf } from '../../identity/index.js';
import { contentDisposition } from '../../catalog/index.js';
import {
  BookParams,
  ImportFields,
  ImportQuery,
  ImportReport,
  ItemParams,
  ReadListBooksAdd,
  ReadListCreate,
  ReadListDetail,
  ReadListItemUpdate,
  ReadListOrder,
  ReadListProgress,
  ReadListQuery,
  ReadListUpdate,
  ReadListView,
} from './schemas.js';
import type { ReadListsService } from './service.js';
import { readUpload } from './upload.js';

const tags = ['read-lists'];
const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const ReadListPage = paginated(ReadListView);
const SHARED_RULE =
  'One’s own list needs only the route’s permission; a shared one (creating it, sharing or unsharing one, changing it) needs read-lists-write, deleting it read-lists-delete.';

export function registerReadListRoutes(app: App, readLists: ReadListsService): void {
  app.route({
    method: 'GET',
    url: '/read-lists',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'List read lists',
      description: "Shared lists and the caller's own, by name. Counts and covers count only the books the caller may see.",
      tags,
      querystring: ReadListQuery,
      response: { 200: ReadListPage, 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await readLists.list(callerOf(req), { search: req.query.search }, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/read-lists',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Create a read list',
      description: `Private to the caller unless \`shared\`. ${SHARED_RULE} Names are unique, ignoring case, among the shared lists and among each user's (409).`,
      tags,
      body: ReadListCreate,
      response: { 201: ReadListDetail, ...errors, 409: ErrorBody },
    },
    handler: async (req, reply) => reply.code(201).send(await readLists.create(callerOf(req), req.body)),
  });

  void app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.route({
      method: 'POST',
      url: '/read-lists/import',
      config: { permission: BROWSE_READ_LISTS },
      schema: {
        summary: 'Import a ComicRack reading list (.cbl)',
        description:
          'multipart/form-data: the .cbl file in the field `file`; optional fields `dry_run` (`true`: only report, also accepted in the query ' +
          "string), `name` (default: the file's <Name>), `summary`, `shared` (`true`; needs read-lists-write), and `resolutions`: JSON " +
          '`{"<entry index>": "<book id>"}` choosing books for entries (an ambiguous one, from a dry run\'s report). ' +
          'Each entry is matched to a book the caller sees by its series name (case, punctuation, a leading "The" and &/and ignored), its ' +
          'Volume (the start year: a series or folder named "Klaus (2015)", or ComicInfo Volume 2015), its Number (1 = 001) and its ' +
          'Year, and by its ComicVine issue id where books link to ComicVine in ComicInfo Web. The report gives each entry `matched` ' +
          '(with book_id), `ambiguous` (with candidates) or `missing`. Without dry_run the list is created (201) holding every entry: ' +
          'those without a book wait for it (`missing_count`), a later scan that adds the book fills them, and ' +
          'PATCH /read-lists/{id}/items/{item_id} sets one by hand. A file that is no reading list is a 400 saying why.',
        tags,
        querystring: ImportQuery,
        response: { 200: ImportReport, 201: ImportReport, ...errors, 409: ErrorBody },
      },
      handler: async (req, reply) => {
        const upload = await readUpload(req, 'file');
        if (!upload.file) throw badRequest('No file: send the .cbl file in the form field "file"');
        const fields = ImportFields.safeParse(upload.fields);
        if (!fields.success) {
          const issue = fields.error.issues[0];
          throw badRequest(`${issue?.path.join('.') || 'form'}: ${issue?.message ?? 'invalid'}`, {
            fields: fields.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
          });
        }
        const dryRun = req.query.dry_run ?? fields.data.dry_run ?? false;
        const report = await readLists.importCbl(callerOf(req), upload.file.data, {
          ...fields.data,
          dryRun,
          fileName: upload.file.fileName,
        });
        return reply.code(dryRun ? 200 : 201).send(report);
      },
    });
  });

  app.route({
    method: 'GET',
    url: '/read-lists/:id',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'A read list with its books',
      description:
        'The entries in order: books the caller may see (as Book), and entries waiting for a book (`book` null, `wanted` says what ' +
        'the CBL entry asked for; shown to the owner and to unrestricted users).',
      tags,
      params: IdParams,
      response: { 200: ReadListDetail, ...errors },
    },
    handler: (req) => readLists.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'PATCH',
    url: '/read-lists/:id',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Update a read list',
      description: `Name, summary, cover and sharing. ${SHARED_RULE}`,
      tags,
      params: IdParams,
      body: ReadListUpdate,
      response: { 200: ReadListView, ...errors, 409: ErrorBody },
    },
    handler: (req) => readLists.update(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'DELETE',
    url: '/read-lists/:id',
    config: { permission: BROWSE_READ_LISTS },
    schema: { summary: 'Delete a read list', description: SHARED_RULE, tags, params: IdParams, response: { 204: z.null(), ...errors } },
    handler: async (req, reply) => {
      await readLists.remove(callerOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/read-lists/:id/books',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Add books to a read list',
      description: `Books already in the list stay where they are. ${SHARED_RULE}`,
      tags,
      params: IdParams,
      body: ReadListBooksAdd,
      response: { 200: ReadListDetail, ...errors },
    },
    handler: (req) => readLists.addBooks(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'DELETE',
    url: '/read-lists/:id/books/:book_id',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Remove a book from a read list',
      description: SHARED_RULE,
      tags,
      params: BookParams,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      await readLists.removeBook(callerOf(req), req.params.id, req.params.book_id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'PUT',
    url: '/read-lists/:id/books/order',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Reorder the books of a read list',
      description: `Every book of the list the caller sees, each once. Entries waiting for a book keep their places. ${SHARED_RULE}`,
      tags,
      params: IdParams,
      body: ReadListOrder,
      response: { 200: ReadListDetail, ...errors },
    },
    handler: (req) => readLists.order(callerOf(req), req.params.id, req.body.book_ids),
  });

  app.route({
    method: 'PATCH',
    url: '/read-lists/:id/items/:item_id',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Set the book of a read list entry',
      description: `Resolves an entry a CBL import left ambiguous or missing (its wanted fields stay). ${SHARED_RULE}`,
      tags,
      params: ItemParams,
      body: ReadListItemUpdate,
      response: { 200: ReadListDetail, ...errors, 409: ErrorBody },
    },
    handler: (req) => readLists.setItemBook(callerOf(req), req.params.id, req.params.item_id, req.body.book_id),
  });

  app.route({
    method: 'DELETE',
    url: '/read-lists/:id/items/:item_id',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Remove an entry from a read list',
      description: `Also one waiting for a book. ${SHARED_RULE}`,
      tags,
      params: ItemParams,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      await readLists.removeItem(callerOf(req), req.params.id, req.params.item_id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'GET',
    url: '/read-lists/:id/progress',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: "The caller's progress over a read list",
      description: 'Books read, in progress and unread among those the caller sees, and the first one in list order not finished.',
      tags,
      params: IdParams,
      response: { 200: ReadListProgress, ...errors },
    },
    handler: (req) => readLists.progress(callerOf(req), req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/read-lists/:id/cbl',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Export a read list as a ComicRack .cbl file',
      description:
        'An attachment: entries that came from a CBL file as they came, books added by id as series, number, start year (Volume), ' +
        'year and ComicVine issue when known. Only what the caller sees.',
      tags,
      params: IdParams,
      response: { 200: z.string(), ...errors },
    },
    handler: async (req, reply) => {
      const { fileName, xml } = await readLists.exportCbl(callerOf(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', contentDisposition(fileName)).send(xml);
    },
  });

  app.route({
    method: 'GET',
    url: '/books/:id/read-lists',
    config: { permission: BROWSE_READ_LISTS },
    schema: {
      summary: 'Read lists holding a book',
      description: 'The read lists the caller sees that hold the book (404 for a book the caller may not see).',
      tags,
      params: IdParams,
      querystring: PaginationQuery,
      response: { 200: ReadListPage, ...errors },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await readLists.ofBook(callerOf(req), req.params.id, page);
      return toPage(req.url, page, total, data);
    },
  });
}
