import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest, ErrorBody } from '../../http/errors.js';
import { IdParams, Uuid } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { COVER_MAX_BYTES, COVER_MAX_PIXELS, type CoverInput, type CustomCoverService } from './custom.js';

const CoverView = z
  .object({
    source: z.enum(['generated', 'upload', 'page']),
    book_id: z.string().nullable(),
    page: z.number().int().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'Cover' });

const CoverFromPage = z
  .object({ book_id: Uuid, page: z.number().int().min(1) })
  .strict()
  .meta({ id: 'CoverFromPage' });

const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const PUT_DESCRIPTION =
  `Either multipart/form-data with a JPEG, PNG or WebP image in the field \`file\` (at most ${COVER_MAX_BYTES / 1024 / 1024} MB ` +
  `and ${COVER_MAX_PIXELS / 1_000_000} megapixels), or JSON \`{book_id, page}\`: a page (1-based) of a book the caller sees. ` +
  'The image is decoded and re-encoded (never served as sent); thumbnails, OPDS and the Komga API show it at once and a ' +
  '`cover_updated` event is sent. 413: too many bytes or pixels; 415: not a JPEG, PNG or WebP; 422: it cannot be decoded.';

/** The upload in the field `file`, within the cover's size limit (a larger file is the plugin's 413). */
async function uploadedImage(req: FastifyRequest): Promise<Buffer> {
  const hint = 'send the image as multipart/form-data in the field "file"';
  for await (const part of req.parts({ limits: { fileSize: COVER_MAX_BYTES, files: 1 } })) {
    if (part.type === 'file' && part.fieldname === 'file') return part.toBuffer();
    if (part.type === 'file') await part.toBuffer();
  }
  throw badRequest(`No image: ${hint}`);
}

async function coverInput(req: FastifyRequest): Promise<CoverInput> {
  if (req.isMultipart()) return { upload: await uploadedImage(req) };
  const body = CoverFromPage.safeParse(req.body);
  if (!body.success) {
    throw badRequest('Send an image as multipart/form-data in the field "file", or JSON {"book_id", "page"}', {
      fields: body.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
    });
  }
  return body.data;
}

/** PUT / DELETE / GET `/series/{id}/cover` and `/books/{id}/cover`. */
export function registerCoverRoutes(app: App, covers: CustomCoverService): void {
  for (const kind of ['series', 'book'] as const) {
    const url = kind === 'series' ? '/series/:id/cover' : '/books/:id/cover';
    const tags = [kind === 'series' ? 'series' : 'books'];
    const write = kind === 'series' ? 'series-write' : 'books-write';
    const read = kind === 'series' ? 'series-read' : 'books-read';
    const what = kind === 'series' ? "The series' cover" : "The book's cover";

    app.route({
      method: 'GET',
      url,
      config: { permission: read },
      schema: {
        summary: `${what}: generated or chosen`,
        description: '`source` says where it comes from; `book_id` and `page` name the page it was made from.',
        tags,
        params: IdParams,
        response: { 200: CoverView, ...errors },
      },
      handler: (req) => covers.get(callerOf(req), { kind, id: req.params.id }),
    });

    app.route({
      method: 'PUT',
      url,
      config: { permission: write },
      schema: {
        summary: `Choose ${kind === 'series' ? "the series'" : "the book's"} cover`,
        description: PUT_DESCRIPTION,
        tags,
        params: IdParams,
        // The JSON form; the multipart form is read by the handler.
        body: CoverFromPage.nullish(),
        response: { 200: CoverView, ...errors, 413: ErrorBody, 415: ErrorBody, 422: ErrorBody },
      },
      handler: async (req) => covers.set(callerOf(req), { kind, id: req.params.id }, await coverInput(req)),
    });

    app.route({
      method: 'DELETE',
      url,
      config: { permission: write },
      schema: {
        summary: `Go back to the generated ${kind === 'series' ? 'series' : 'book'} cover`,
        description: 'Removes the chosen cover; the answer is the cover now shown (`source: generated`).',
        tags,
        params: IdParams,
        response: { 200: CoverView, ...errors },
      },
      handler: (req) => covers.remove(callerOf(req), { kind, id: req.params.id }),
    });
  }
}
