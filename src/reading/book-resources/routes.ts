import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { IdParams, Uuid } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf, deviceHint } from '../../identity/index.js';
import { IMAGE_CACHE_CONTROL } from '../../http/send-image.js';
import type { BookResourcesService } from './service.js';

const tags = ['pages'];
const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody };

const ResourceView = z
  .object({
    path: z.string().describe('Path of the file inside the archive.'),
    media_type: z.string().describe("The type the book's package document declares, else one from the file name."),
    size: z.number().int().describe('Uncompressed bytes.'),
  })
  .meta({ id: 'BookResource' });

const Locator = z
  .object({
    href: z.string().min(1).max(2000).describe('The section (a path inside the archive, as the reading order names it).'),
    cfi: z.string().max(4000).optional().describe('EPUB CFI of the position, when the reader has one.'),
    progression: z.number().min(0).max(1).optional().describe('Share of the section read, 0..1.'),
  })
  .meta({ id: 'Locator' });

const LocatorUpdate = z
  .object({
    locator: Locator,
    percentage: z.number().min(0).max(1).describe('Share of the whole book read, 0..1.'),
    recorded_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        'Optional: when the reader was at this position (RFC 3339), for a position sent late (the device was offline). ' +
          "Recorded before the current position's time: kept in the history, the position stays. A time in the future counts as now.",
      ),
    entry_id: z
      .uuid()
      .optional()
      .describe("Optional: the client's own id of this position; one this user already sent is not recorded again (as ProgressUpdate)."),
  })
  .meta({ id: 'LocatorUpdate' });

const LocatorView = z
  .object({
    book_id: z.string(),
    locator: Locator.nullable().describe('Null when the last position was saved as a page (by another client).'),
    percentage: z.number().describe('Share of the book read, 0..1.'),
    current_page: z.number().int().describe('The section, as a 1-based position in the reading order.'),
    page_count: z.number().int(),
    is_completed: z.boolean(),
    updated_at: z.string(),
  })
  .meta({ id: 'LocatorProgress' });

/** Files are sandboxed: a book's XHTML may carry scripts, and must not run as this origin when opened directly. */
const RESOURCE_HEADERS = {
  'cache-control': IMAGE_CACHE_CONTROL,
  'content-security-policy': 'sandbox',
  'x-content-type-options': 'nosniff',
};

export function registerBookResourceRoutes(app: App, resources: BookResourcesService): void {
  app.route({
    method: 'GET',
    url: '/books/:id/resources',
    config: { permission: 'pages-read' },
    schema: {
      summary: 'List the files inside a book',
      description: 'EPUB and CBZ books: every file of the archive with its media type and size (a 400 for other formats).',
      tags,
      params: IdParams,
      response: { 200: z.array(ResourceView), ...errors },
    },
    handler: (req) => resources.list(callerOf(req), req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/books/:id/resource/*',
    config: { permission: 'pages-read' },
    schema: {
      summary: 'One file inside a book, by its path in the archive',
      description:
        'For readers that lay a book out themselves (EPUB in the browser, Readium clients). The media type is the one the package ' +
        'document declares. ETag + `Cache-Control: private, max-age=3600`; `If-None-Match` gives 304. The response is sandboxed ' +
        '(`Content-Security-Policy: sandbox`). 404 for a path the archive does not hold.',
      tags,
      params: z.object({ id: Uuid, '*': z.string().min(1).max(2000).describe('Path inside the archive.') }),
      response: { 200: z.any().describe('The file'), 304: z.null().describe('Not modified'), ...errors },
    },
    handler: async (req, reply) => {
      const file = await resources.resource(callerOf(req), req.params.id, req.params['*']);
      const tags = req.headers['if-none-match']?.split(',').map((t) => t.trim().replace(/^W\//, '')) ?? [];
      if (tags.includes(file.etag) || tags.includes('*'))
        return reply
          .code(304)
          .headers({ ...RESOURCE_HEADERS, etag: file.etag })
          .send();
      return reply
        .headers({ ...RESOURCE_HEADERS, etag: file.etag })
        .header('content-type', file.mediaType)
        .send(file.data);
    },
  });

  app.route({
    method: 'GET',
    url: '/books/:id/manifest',
    config: { permission: 'pages-read' },
    schema: {
      summary: 'Readium Web Publication Manifest of an EPUB',
      description:
        'Reading order and resources link to the resource endpoint (paths relative to the server root). A 400 for other formats.',
      tags,
      params: IdParams,
      response: { 200: z.record(z.string(), z.unknown()), ...errors },
    },
    handler: async (req, reply) =>
      reply.header('content-type', 'application/webpub+json').send(await resources.manifest(callerOf(req), req.params.id, '')),
  });

  app.route({
    method: 'GET',
    url: '/books/:id/progress/locator',
    config: { permission: 'progress-read' },
    schema: {
      summary: "The caller's position in a reflowable book",
      description:
        'The locator of the newest position (null when it was saved as a page), the share read and the page-based progress. 404 when not started.',
      tags: ['progress'],
      params: IdParams,
      response: { 200: LocatorView, 404: ErrorBody },
    },
    handler: (req) => resources.locator(callerOf(req), req.params.id),
  });

  app.route({
    method: 'PUT',
    url: '/books/:id/progress/locator',
    config: { permission: 'progress-write' },
    schema: {
      summary: 'Save the position in a reflowable book',
      description:
        "current_page becomes the locator's section in the reading order; the locator and share are kept in the progress history. " +
        'A share of 0.995 or more completes the book; entering the last section does not.',
      tags: ['progress'],
      params: IdParams,
      body: LocatorUpdate,
      response: { 200: LocatorView, 400: ErrorBody, 404: ErrorBody },
    },
    handler: (req) => resources.saveLocator(callerOf(req), req.params.id, req.body, deviceHint(req)),
  });
}
