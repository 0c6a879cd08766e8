import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { sendImage } from '../../http/send-image.js';
import { sendBookFile } from './download.js';
import { listSerializerCompiler } from './list-serializer.js';
import { BookFilterBody, BookFilterQuery, BookListQuery, BookView } from './schemas.js';
import type { BookListInput, BooksService, FilterInput } from './service.js';
import type { MetadataService } from '../metadata/service.js';
import { BookUpdate, changeOf, LOCKS, WriteBackReport } from '../metadata/schemas.js';

const tags = ['books'];
const errors = { 400: ErrorBody, 404: ErrorBody };
const BookPage = paginated(BookView);
const BookEditResult = BookView.extend({ write_back: WriteBackReport }).meta({ id: 'BookEditResult' });

export function registerBookRoutes(app: App, books: BooksService, metadata: MetadataService): void {
  app.route({
    method: 'PATCH',
    url: '/books/:id',
    config: { permission: 'books-write' },
    schema: {
      summary: 'Edit a book',
      description: `Metadata fields under the names GET shows. ${LOCKS}`,
      tags,
      params: IdParams,
      body: BookUpdate,
      response: { 200: BookEditResult, ...errors },
    },
    handler: async (req) => {
      const caller = callerOf(req);
      const { write_back } = await metadata.edit(caller, 'book', [req.params.id], changeOf(req.body));
      return { ...(await books.get(caller, req.params.id)), write_back };
    },
  });

  app.route({
    method: 'GET',
    url: '/books',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'books-read', keepWhileUnchanged: true },
    schema: { summary: 'List books', tags, querystring: BookListQuery, response: { 200: BookPage, 400: ErrorBody } },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const q = req.query;
      const input: BookListInput = {
        sort: q.sort,
        order: q.order,
        library_id: q.library_id ?? q.libraryId,
        series_id: q.series_id ?? q.seriesId,
      };
      const { total, data } = await books.list(callerOf(req), input, page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'POST',
    url: '/books/list',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'books-read', keepWhileUnchanged: true },
    schema: {
      summary: 'Filtered list of books',
      description:
        'Pagination and sort in the query string; the body holds the condition tree and an optional full-text query. ' +
        "`releaseYear` and `author` are extensions beyond the spec's list of book fields.",
      tags,
      querystring: BookFilterQuery,
      body: BookFilterBody,
      response: { 200: BookPage, 400: ErrorBody },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await books.filter(callerOf(req), req.body as FilterInput, req.query, page);
      return toPage(req.url, page, total, data);
    },
  });

  const readingList = (url: string, summary: string, description: string, mode: 'in_progress' | 'recently_read' | 'recently_added') =>
    app.route({
      method: 'GET',
      url,
      serializerCompiler: listSerializerCompiler,
      config: { permission: 'books-read', keepWhileUnchanged: true },
      schema: { summary, description, tags, querystring: PaginationQuery, response: { 200: BookPage } },
      handler: async (req) => {
        const page = pageRequest(req.query);
        const { total, data } = await books.readingList(callerOf(req), mode, page);
        return toPage(req.url, page, total, data);
      },
    });
  readingList(
    '/books/in-progress',
    'Books being read',
    'Books the caller started and has not finished, most recently updated first.',
    'in_progress',
  );
  readingList('/books/recently-read', 'Recently read', 'Books the caller finished, most recently finished first.', 'recently_read');
  readingList('/books/recently-added', 'Recently added', 'Books by date added, newest first.', 'recently_added');

  app.route({
    method: 'GET',
    url: '/books/on-deck',
    serializerCompiler: listSerializerCompiler,
    config: { permission: 'books-read', keepWhileUnchanged: true },
    schema: {
      summary: 'Next unread book in started series',
      description:
        'For each series in which the caller finished at least one book and has no book in progress: the first book without progress ' +
        '(by number, then title) that can be read (a book whose analysis failed is passed over). Series most recently active first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: BookPage },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const { total, data } = await books.onDeck(callerOf(req), page);
      return toPage(req.url, page, total, data);
    },
  });

  app.route({
    method: 'GET',
    url: '/books/:id',
    config: { permission: 'books-read' },
    schema: { summary: 'Book details', tags, params: IdParams, response: { 200: BookView, ...errors } },
    handler: (req) => books.get(callerOf(req), req.params.id),
  });

  app.route({
    method: 'GET',
    url: '/books/:id/thumbnail',
    config: { permission: 'books-read' },
    schema: {
      summary: 'Book cover image',
      description:
        'WebP when the Accept header lists image/webp, else JPEG; cached on disk; ETag and 304. A book that cannot be read (analysis ' +
        'error, no page) gets a generated placeholder naming its format and "UNREADABLE".',
      tags,
      params: IdParams,
      response: { 200: z.any().describe('Image bytes'), 304: z.null(), ...errors },
    },
    handler: async (req, reply) => sendImage(req, reply, await books.thumbnail(callerOf(req), req.params.id, req.headers.accept)),
  });

  app.route({
    // HEAD declared explicitly: Fastify's implicit HEAD cannot take the null body a HEAD download sends.
    method: ['GET', 'HEAD'],
    url: '/books/:id/file',
    config: { permission: 'books-read', fileCookie: true },
    schema: {
      summary: 'Download the original file',
      description:
        'Content-Disposition attachment with the file name; a single `Range: bytes=` gives 206 (416 outside the file); ETag and 304. ' +
        'Besides the usual credentials, a browser may present its access token in the `colophon_file_token` cookie, so a plain link downloads. ' +
        'Also requires `pages-read`: the file holds every page.',
      tags,
      params: IdParams,
      response: { 200: z.any().describe('File bytes'), 206: z.any().describe('Partial content'), 304: z.null(), 416: ErrorBody, ...errors },
    },
    handler: async (req, reply) => sendBookFile(req, reply, await books.file(callerOf(req), req.params.id)),
  });
}
