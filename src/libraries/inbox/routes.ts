import { z } from 'zod';
import { AppError, badRequest, ErrorBody, errorBody } from '../../http/errors.js';
import { pageRequest, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { requestLanguage } from '../../i18n/request.js';
import { localize } from '../../i18n/messages.js';
import { callerOf } from '../../identity/index.js';
import {
  AcceptManyRequest,
  AcceptManyResult,
  AcceptRequest,
  folderView,
  InboxFolderInput,
  InboxFolderView,
  InboxItemChanges,
  InboxItemsQuery,
  InboxItemView,
  itemView,
  TemplatePreview,
  TemplatePreviewRequest,
} from './schemas.js';
import type { InboxService } from './service.js';
import type { InboxUploads } from './uploads.js';

const tags = ['inbox'];
const errors = { 400: ErrorBody, 404: ErrorBody, 409: ErrorBody };

/**
 * The inbox: folders (administrators: libraries-write) and the review queue (books-write on the folder's
 * library; items of other libraries are not found).
 */
export function registerInboxRoutes(app: App, inbox: InboxService): void {
  const manage = { permission: 'libraries-write' } as const;
  const review = { permission: 'books-write' } as const;

  app.route({
    method: 'GET',
    url: '/inbox/folders',
    config: review,
    schema: {
      summary: 'List inbox folders',
      description:
        "The folders of the libraries the caller may file into (to upload into). Their `path` is shown to those who manage libraries (libraries-write) only, as libraries' folders are.",
      tags,
      response: { 200: z.object({ data: z.array(InboxFolderView) }) },
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const paths = caller.permissions.has('libraries-write');
      return { data: (await inbox.folders(caller)).map((f) => folderView(f, inbox.watchOf(f.id), paths)) };
    },
  });

  app.route({
    method: 'POST',
    url: '/inbox/folders',
    config: manage,
    schema: {
      summary: 'Add an inbox folder',
      description:
        'Files that appear in the folder are watched until their size and time stay the same for the quiet period (config `inbox.quiet_seconds`), analysed, matched to a series of the library and put in the review queue. 409 when the folder is inside a library or another inbox, or holds one.',
      tags,
      body: InboxFolderInput,
      response: { 201: InboxFolderView, ...errors },
    },
    handler: async (req, reply) => {
      const folder = await inbox.createFolder(callerOf(req), req.body);
      return reply.code(201).send(folderView(folder, inbox.watchOf(folder.id), true));
    },
  });

  app.route({
    method: 'PUT',
    url: '/inbox/folders/:id',
    config: manage,
    schema: {
      summary: 'Change an inbox folder',
      description: "Waiting items are proposed again under a new template or library (a person's changes are kept).",
      tags,
      params: IdParams,
      body: InboxFolderInput,
      response: { 200: InboxFolderView, ...errors },
    },
    handler: async (req) => {
      const folder = await inbox.updateFolder(callerOf(req), req.params.id, req.body);
      return folderView(folder, inbox.watchOf(folder.id), true);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/inbox/folders/:id',
    config: manage,
    schema: {
      summary: 'Remove an inbox folder',
      description: 'Stops watching it and forgets its queue; the files in it stay where they are.',
      tags,
      params: IdParams,
      response: { 204: z.null().describe('Removed'), 404: ErrorBody },
    },
    handler: async (req, reply) => {
      await inbox.deleteFolder(callerOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/inbox/template-preview',
    config: manage,
    schema: {
      summary: 'Preview a naming template',
      description:
        'Where three sample books (a comic, a manga volume, a novel) would go; a template with a mistake is 400 with `details.at`, the place of the mistake.',
      tags,
      body: TemplatePreviewRequest,
      response: { 200: TemplatePreview, 400: ErrorBody },
    },
    handler: async (req) => {
      const preview = inbox.preview(req.body.template);
      const language = requestLanguage(req);
      return { examples: preview.examples.map((e) => ({ ...e, problem: e.problem && localize(language, e.problem) })) };
    },
  });

  app.route({
    method: 'GET',
    url: '/inbox/items',
    config: review,
    schema: {
      summary: 'The review queue',
      description: 'Items of the libraries the caller may file into, oldest first.',
      tags,
      querystring: InboxItemsQuery,
      response: { 200: paginated(InboxItemView), 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const status = req.query.status ?? ['analysing', 'review', 'duplicate', 'clash', 'damaged', 'filing', 'failed'];
      const { rows, total } = await inbox.items(
        callerOf(req),
        { status, ...(req.query.folder_id ? { folderId: req.query.folder_id } : {}) },
        page.offset,
        page.pageSize,
      );
      const language = requestLanguage(req);
      return toPage(
        req.url,
        page,
        total,
        rows.map((r) => itemView(r, language)),
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/inbox/items/:id',
    config: review,
    schema: { summary: 'An item of the review queue', tags, params: IdParams, response: { 200: InboxItemView, 404: ErrorBody } },
    handler: async (req) => itemView(await inbox.item(callerOf(req), req.params.id), requestLanguage(req)),
  });

  app.route({
    method: 'PATCH',
    url: '/inbox/items/:id',
    config: review,
    schema: {
      summary: 'Change a proposal',
      description:
        'Series, number, volume, year, title, or the path itself; the item is checked again (a clash resolved goes back to `review`).',
      tags,
      params: IdParams,
      body: InboxItemChanges,
      response: { 200: InboxItemView, ...errors },
    },
    handler: async (req) => itemView(await inbox.change(callerOf(req), req.params.id, req.body), requestLanguage(req)),
  });

  app.route({
    method: 'POST',
    url: '/inbox/items/:id/accept',
    config: review,
    schema: {
      summary: 'File an item',
      description:
        'Moves the file into the library (never over another file: a clash is 409), then scans its folder: `inbox_item_filed` on `/events/stream` says when the book exists. A duplicate needs `duplicate`. A move that fails (a read-only library) is 409 and leaves the file in the inbox (`status: failed`).',
      tags,
      params: IdParams,
      body: AcceptRequest.nullish(),
      response: { 200: InboxItemView, ...errors },
    },
    handler: async (req) => itemView(await inbox.accept(callerOf(req), req.params.id, req.body ?? {}), requestLanguage(req)),
  });

  app.route({
    method: 'POST',
    url: '/inbox/items/accept',
    config: review,
    schema: {
      summary: 'File several items',
      description: 'Each as `POST /inbox/items/{id}/accept` would; one that cannot be filed gets its error and the others are filed.',
      tags,
      body: AcceptManyRequest,
      response: { 200: AcceptManyResult, 400: ErrorBody },
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const language = requestLanguage(req);
      const data = [];
      for (const id of req.body.ids) {
        try {
          data.push({ id, item: itemView(await inbox.accept(caller, id, { duplicate: req.body.duplicate }), language), error: null });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          data.push({ id, item: null, error: errorBody(err.code, localize(language, err.message), err.details) });
        }
      }
      return { data };
    },
  });

  app.route({
    method: 'POST',
    url: '/inbox/items/:id/reject',
    config: review,
    schema: {
      summary: 'Reject an item',
      description: "Moves the file to the inbox folder's `rejected` subfolder (never deleted).",
      tags,
      params: IdParams,
      response: { 200: InboxItemView, ...errors },
    },
    handler: async (req) => itemView(await inbox.reject(callerOf(req), req.params.id), requestLanguage(req)),
  });
}

const TUS_DOC =
  "Resumable upload into an inbox folder, by the tus protocol 1.0 (https://tus.io/protocols/resumable-upload, extensions creation, creation-with-upload, termination, expiration). Needs books-write on the folder's library.";

const TusHeaders = z.object({ 'tus-resumable': z.literal('1.0.0').describe('The tus protocol version.') });

/** tus over Fastify: the request body is left unread for @tus/server, which answers on the raw response. */
export function registerUploadRoutes(app: App, uploads: InboxUploads): void {
  const review = { permission: 'books-write' } as const;
  // The bytes of a PATCH (and of a POST with creation-with-upload) are tus's to read.
  app.addContentTypeParser('application/offset+octet-stream', (_req, _payload, done) => done(null, undefined));

  app.route({
    method: 'POST',
    url: '/inbox/uploads',
    config: review,
    schema: {
      summary: 'Start an upload',
      description: `${TUS_DOC} \`Upload-Metadata\` carries \`filename\` and \`folder_id\` (base64, as tus writes them); \`Upload-Length\` the size. 201 with \`Location\`, the upload's address. 413 over the setting \`inbox_upload_max_mb\`; 507 without the free space.`,
      tags,
      headers: TusHeaders.extend({
        'upload-length': z.string().regex(/^\d+$/).describe('Size of the file in bytes.'),
        'upload-metadata': z.string().describe('`filename <base64>,folder_id <base64>`.'),
      }),
      response: {
        201: z.null().describe('Created: `Location` is where to PATCH the bytes.'),
        400: ErrorBody,
        404: ErrorBody,
        413: ErrorBody,
        507: ErrorBody,
      },
    },
    handler: async (req, reply) => {
      await uploads.checkCreation(callerOf(req), req.raw);
      reply.hijack();
      await uploads.tus.handle(req.raw, reply.raw);
    },
  });

  for (const method of ['HEAD', 'PATCH', 'DELETE'] as const) {
    app.route({
      method,
      url: '/inbox/uploads/:id',
      config: review,
      schema: {
        summary: { HEAD: 'How far an upload got', PATCH: 'Send bytes of an upload', DELETE: 'Cancel an upload' }[method],
        description: {
          HEAD: `${TUS_DOC} \`Upload-Offset\`: the bytes the server has; go on from there.`,
          PATCH: `${TUS_DOC} \`Content-Type: application/offset+octet-stream\`, \`Upload-Offset\` the bytes already sent. The last one answers once the file is in the inbox folder and analysed (\`Inbox-Item-Id\`: its review item).`,
          DELETE: `${TUS_DOC} The bytes received are removed.`,
        }[method],
        tags,
        params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/) }),
        headers: TusHeaders,
        response: { 204: z.null(), 200: z.null(), 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
      },
      handler: async (req, reply) => {
        // tus reads the id from the whole URL: with a query string it could name another upload than the one checked.
        if (req.url.includes('?')) throw badRequest('An upload address takes no query string', { field: 'url' });
        await uploads.checkOwner(callerOf(req), req.params.id);
        reply.hijack();
        await uploads.tus.handle(req.raw, reply.raw);
      },
    });
  }
}
