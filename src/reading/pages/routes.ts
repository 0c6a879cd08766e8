import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { PageNumberParam, Uuid } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { sendImage } from '../../http/send-image.js';
import type { PagesService } from './service.js';

const tags = ['pages'];

const PageView = z
  .object({
    number: z.number().int().describe('1-based position in reading order.'),
    file_name: z.string().describe('Entry inside the archive (spine document for EPUB, `page-N` for PDF).'),
    media_type: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    size: z.number().int().describe('Bytes of the entry; 0 when only known after rendering (PDF).'),
  })
  .meta({ id: 'Page' });

const PageParams = z.object({ book_id: Uuid, page_number: PageNumberParam.describe('1-based page number.') });

const PageQuery = z.object({
  width: z.coerce.number().int().min(1).max(10_000).optional().describe('Maximum width, pixels (never enlarged).'),
  height: z.coerce.number().int().min(1).max(10_000).optional().describe('Maximum height, pixels (never enlarged).'),
  format: z
    .enum(['jpeg', 'png', 'webp'])
    .optional()
    .describe("Output format; default: the page's own (a GIF stays GIF; BMP and Netpbm become PNG, AVIF JPEG)."),
  grayscale: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional()
    .describe('Shades of grey (for e-ink screens), cached like a resize; a GIF becomes PNG.'),
});

export function registerPageRoutes(app: App, pages: PagesService): void {
  app.route({
    method: 'GET',
    url: '/books/:id/pages',
    config: { permission: 'pages-read' },
    schema: {
      summary: 'List the pages of a book',
      tags,
      params: z.object({ id: Uuid }),
      response: { 200: z.array(PageView), 404: ErrorBody },
    },
    handler: (req) => pages.list(callerOf(req), req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/books/:book_id/pages/:page_number',
    config: { permission: 'pages-read' },
    schema: {
      summary: 'Page image',
      description:
        'Without parameters: the original bytes with their media type. With width/height/format/grayscale: resized to fit (aspect kept, never ' +
        'enlarged) and converted; results are cached on disk. ETag + `Cache-Control: private, max-age=3600`; `If-None-Match` gives 304. ' +
        'A page number outside 1..page_count is a 404. A page that is a text document (a reflowable EPUB chapter) is served as it is ' +
        'without parameters and cannot be resized or converted (400).',
      tags,
      params: PageParams,
      querystring: PageQuery,
      response: { 200: z.any().describe('Image bytes'), 304: z.null().describe('Not modified'), 400: ErrorBody, 404: ErrorBody },
    },
    handler: async (req, reply) =>
      sendImage(req, reply, await pages.page(callerOf(req), req.params.book_id, req.params.page_number, req.query)),
  });
}
