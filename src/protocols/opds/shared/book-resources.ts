import { z } from 'zod';
import { ErrorBody } from '../../../http/errors.js';
import { Uuid } from '../../../http/params.js';
import type { App } from '../../../http/types.js';
import { type Caller, callerOf } from '../../../identity/index.js';
import { sendBookFile } from '../../../catalog/index.js';
import type { ImageLookup } from '../../../reading/index.js';
import { sendImage } from '../../../http/send-image.js';
import type { FeedCatalog } from './feed-catalog.js';
import { feedConfig } from './routes.js';

const tags = ['opds'];
const binary = z.any().describe('Bytes');
const IdParams = z.object({ id: Uuid });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/**
 * What feed links point at, under one feed prefix: the book file (acquisition), the cover, the thumbnail and a
 * series' thumbnail. Each feed version has its own copy so a reader never leaves the tree (and its Basic
 * challenge) it was configured with.
 */
export function registerBookResources(app: App, prefix: string, catalog: FeedCatalog, hide: boolean): void {
  // GET and HEAD declared together: Fastify's automatic HEAD route fails on the download's empty HEAD body
  // (and would report Content-Length 0); an explicit HEAD keeps the file's Content-Length and reads nothing.
  app.route({
    method: ['GET', 'HEAD'],
    url: `${prefix}/books/:id/file`,
    config: feedConfig('books-read'),
    schema: {
      summary: 'Download the book file (acquisition link)',
      description:
        'Content-Disposition with the file name, Content-Length, ETag (304 on If-None-Match); a single `Range: bytes=` gives 206 (416 outside the file).',
      tags,
      hide,
      params: IdParams,
      response: { 200: binary, 206: binary, 304: z.null(), 416: ErrorBody, ...errors },
    },
    handler: async (req, reply) => sendBookFile(req, reply, await catalog.file(callerOf(req), req.params.id)),
  });

  const image = (
    url: string,
    summary: string,
    permission: 'books-read' | 'series-read',
    lookup: (caller: Caller, id: string) => Promise<ImageLookup>,
  ) =>
    app.route({
      method: 'GET',
      url: `${prefix}${url}`,
      config: feedConfig(permission),
      schema: { summary, tags, hide, params: IdParams, response: { 200: binary, 304: z.null(), ...errors } },
      handler: async (req, reply) => sendImage(req, reply, await lookup(callerOf(req), req.params.id)),
    });
  image('/books/:id/cover', 'Book cover, full size JPEG', 'books-read', (c, id) => catalog.bookCover(c, id));
  image('/books/:id/thumbnail', 'Book cover, thumbnail JPEG', 'books-read', (c, id) => catalog.bookThumbnail(c, id));
  image('/series/:id/thumbnail', 'Series cover, thumbnail JPEG', 'series-read', (c, id) => catalog.seriesThumbnail(c, id));
}
