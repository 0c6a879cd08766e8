import { z } from 'zod';
import { AppError } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import { callerOf, deviceHint } from '../../identity/index.js';
import { sendBookFile } from '../../catalog/index.js';
import { sendImage } from '../../http/send-image.js';
import { KOMGA_PROGRESS, komgaProgressOrigin } from './progress-origin.js';
import { allOf, bookBodyCondition, bookQueryCondition } from './conditions.js';
import { pageDto } from './dto.js';
import {
  BOOK_SORTS,
  KomgaBool,
  KomgaListQuery,
  KomgaMulti,
  KomgaPaging,
  komgaPage,
  komgaPageRequest,
  listParam,
  mapSort,
} from './paging.js';
import type { KomgaPresenter } from './presenter.js';
import { BookParams, hidden, komgaRoute, PageParams } from './route-config.js';

const BookSearchBody = z.object({ condition: z.unknown().optional(), fullTextSearch: z.string().max(500).nullish() }).nullish();
const PageImageQuery = z.object({
  convert: z.enum(['jpeg', 'png']).optional().describe('Convert the page to this format.'),
  zero_based: KomgaBool.describe('Page numbers start at 0.'),
  contentNegotiation: KomgaBool,
});
/** Komga's page thumbnails are 300 pixels wide JPEGs. */
const PAGE_THUMBNAIL_WIDTH = 300;
const ReadProgressUpdate = z
  .object({ page: z.number().int().min(0).optional(), completed: z.boolean().optional() })
  .nullish()
  .describe('page can be omitted when completed is true; completed can be omitted (reaching the last page completes the book).');

/** A refusal of the progress service, named with the fields a Komga client sent (`page`, `completed`). */
function inKomgaTerms(err: unknown): unknown {
  if (!(err instanceof AppError) || err.statusCode !== 400) return err;
  const rename = (text: string) => text.replaceAll('current_page', 'page').replaceAll('is_completed', 'completed');
  const details = JSON.parse(rename(JSON.stringify(err.details ?? null))) as unknown;
  return new AppError(err.statusCode, err.code, rename(err.message), details, err.headers, err.extraBody);
}

/** Komga's book, page, file and read-progress endpoints over the books, pages and progress services. */
export function registerKomgaBookRoutes(app: App, komga: KomgaPresenter): void {
  const { books, pages, progress } = komga.services;

  app.route({
    method: 'GET',
    url: '/api/v1/books',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'Books (Komga): search, filters, sort, 0-based pages', querystring: KomgaListQuery },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const sort = mapSort(req.query.sort, BOOK_SORTS);
      const { total, data } = await books.filter(
        caller,
        { condition: allOf(bookQueryCondition(req.query)), fullTextSearch: req.query.search?.trim() || null },
        { sort },
        page,
      );
      return komgaPage(page, total, await komga.bookDtos(caller, data), sort !== undefined);
    },
  });

  app.route({
    method: 'POST',
    url: '/api/v1/books/list',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'Books by a Komga condition body', querystring: KomgaPaging, body: BookSearchBody },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const sort = mapSort(req.query.sort, BOOK_SORTS);
      const { total, data } = await books.filter(
        caller,
        { condition: allOf(bookBodyCondition(req.body?.condition)), fullTextSearch: req.body?.fullTextSearch?.trim() || null },
        { sort },
        page,
      );
      return komgaPage(page, total, await komga.bookDtos(caller, data), sort !== undefined);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/ondeck',
    config: komgaRoute('books-read'),
    schema: {
      ...hidden,
      summary: 'On Deck (Komga): next unread book of started series',
      querystring: KomgaPaging.extend({ library_id: KomgaMulti }),
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const { total, data } = await books.onDeck(caller, page, listParam(req.query.library_id));
      return komgaPage(page, total, await komga.bookDtos(caller, data), false);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/latest',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'Recently changed books (Komga)', querystring: KomgaPaging },
    handler: async (req) => {
      const caller = callerOf(req);
      const page = komgaPageRequest(req.query);
      const { total, data } = await books.filter(caller, {}, { sort: 'modified_at,desc' }, page);
      return komgaPage(page, total, await komga.bookDtos(caller, data), true);
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'One book (Komga)', params: BookParams },
    handler: async (req) => {
      const caller = callerOf(req);
      return komga.bookDto(caller, await books.get(caller, req.params.bookId));
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/next',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'The next book of the series (Komga)', params: BookParams },
    handler: (req) => komga.neighbour(callerOf(req), req.params.bookId, 1),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/previous',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'The previous book of the series (Komga)', params: BookParams },
    handler: (req) => komga.neighbour(callerOf(req), req.params.bookId, -1),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/thumbnail',
    config: komgaRoute('books-read'),
    schema: { ...hidden, summary: 'Book cover (Komga)', params: BookParams },
    handler: async (req, reply) => sendImage(req, reply, await books.thumbnail(callerOf(req), req.params.bookId, req.headers.accept)),
  });

  for (const url of ['/api/v1/books/:bookId/file', '/api/v1/books/:bookId/file/*']) {
    app.route({
      // HEAD declared, as on the native and OPDS download routes: Fastify's implicit HEAD route cannot take the
      // empty body sendBookFile answers HEAD with.
      method: ['GET', 'HEAD'],
      url,
      config: komgaRoute('books-read'),
      schema: { ...hidden, summary: 'Download the book file (Komga)', params: BookParams.extend({ '*': z.string().optional() }) },
      handler: async (req, reply) => sendBookFile(req, reply, await books.file(callerOf(req), req.params.bookId)),
    });
  }

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/pages',
    config: komgaRoute('pages-read'),
    schema: { ...hidden, summary: 'Pages of a book (Komga)', params: BookParams },
    handler: async (req) => (await komga.pages(callerOf(req), req.params.bookId)).map(pageDto),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/pages/:pageNumber',
    config: komgaRoute('pages-read'),
    schema: {
      ...hidden,
      summary: 'Page image (Komga): `convert=png|jpeg`, `zero_based`; 400 for a text page (an EPUB chapter)',
      params: PageParams,
      querystring: PageImageQuery,
    },
    handler: async (req, reply) => {
      const n = req.query.zero_based ? req.params.pageNumber + 1 : req.params.pageNumber;
      return sendImage(
        req,
        reply,
        await pages.page(callerOf(req), req.params.bookId, n, req.query.convert ? { format: req.query.convert } : {}, true),
      );
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/books/:bookId/pages/:pageNumber/thumbnail',
    config: komgaRoute('pages-read'),
    schema: { ...hidden, summary: 'Page thumbnail (Komga): 300 px wide JPEG', params: PageParams },
    handler: async (req, reply) =>
      sendImage(
        req,
        reply,
        await pages.page(callerOf(req), req.params.bookId, req.params.pageNumber, { width: PAGE_THUMBNAIL_WIDTH, format: 'jpeg' }, true),
      ),
  });

  app.route({
    method: 'PATCH',
    url: '/api/v1/books/:bookId/read-progress',
    config: komgaRoute('progress-write'),
    schema: { ...hidden, summary: 'Update read progress (Komga): {page, completed}', params: BookParams, body: ReadProgressUpdate },
    handler: async (req, reply) => {
      try {
        await progress.update(
          callerOf(req),
          req.params.bookId,
          { current_page: req.body?.page, is_completed: req.body?.completed },
          deviceHint(req),
          komgaProgressOrigin(req.body),
        );
      } catch (err) {
        throw inKomgaTerms(err);
      }
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/v1/books/:bookId/read-progress',
    config: komgaRoute('progress-write'),
    schema: { ...hidden, summary: 'Clear read progress (Komga)', params: BookParams },
    handler: async (req, reply) => {
      await progress.clear(callerOf(req), req.params.bookId, deviceHint(req), KOMGA_PROGRESS);
      return reply.code(204).send();
    },
  });
}
