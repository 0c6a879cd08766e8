import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, ErrorBody } from '../../../http/errors.js';
import { PageNumberParam, Uuid } from '../../../http/params.js';
import type { App } from '../../../http/types.js';
import { BROWSE_COLLECTIONS, BROWSE_READ_LISTS, type Caller, callerOf, deviceHint, holdsRule } from '../../../identity/index.js';
import type { SeriesView } from '../../../catalog/index.js';
import { publicBaseUrl } from '../../../http/public-url.js';
import { sendImage } from '../../../http/send-image.js';
import { registerBookResources } from '../shared/book-resources.js';
import { phrase } from '../../../i18n/messages.js';
import { say } from '../../../i18n/request.js';
import { sendFeed, type FeedValidators } from '../shared/conditional.js';
import type { FeedBook, FeedCatalog, Listing } from '../shared/feed-catalog.js';
import { DIVINA_MANIFEST, OPDS2_FEED, OPDS2_PUBLICATION, OPDS_PROGRESSION } from '../shared/media-types.js';
import { parseMaxWidth, recordPageRead } from '../shared/page-stream.js';
import { FeedPageQuery, feedConfig, feedPage, feedRouteBuilder, pageHref, type FeedRequest } from '../shared/routes.js';
import {
  divinaManifest,
  feedLinks,
  isImageBook,
  libraryLink,
  paginationLinks,
  paginationMetadata,
  paths,
  PREFIX,
  publication,
  REL,
  seriesLink,
  type Group,
  type Link,
  type Opds2Feed,
} from './documents.js';
import { OPDS2_PROTOCOL, ProgressionBody, readProgression, writeProgression } from './progression.js';

export interface Opds2Deps {
  catalog: FeedCatalog;
  validators: FeedValidators;
  /** The thumbnail width served now (admin setting `thumbnail_width`). */
  thumbnailWidth: () => number;
  /** `server.public_url`, the base of the search template. */
  publicUrl: string | undefined;
}

const tags = ['opds'];
const Json = z.any().describe('OPDS 2.0 JSON');
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const IdParams = z.object({ id: Uuid });
const SearchQuery = FeedPageQuery.extend({
  query: z.string().max(500).optional().describe('Search terms: series and books whose words start with them.'),
});
const PageParams = z.object({
  id: Uuid,
  pageNumber: PageNumberParam.describe('1-based in the DiViNa manifest; 0-based in the PSE template (`pse=1`).'),
});
const PageQuery = z.object({
  maxWidth: z.string().optional().describe('Largest width wanted, pixels (ignored when not a number).'),
  pse: z.enum(['1']).optional(),
  convert: z
    .enum(['jpeg', 'png', 'webp'])
    .optional()
    .describe('Encode the page in this format: the DiViNa manifest links pages of types browsers do not show (BMP, AVIF, Netpbm) with it.'),
});

/** Groups on the root: a few publications of each list, each with a link to the full list. */
const ROOT_GROUP_SIZE = 10;

/**
 * An empty list still has to be a valid feed: `publications` and `navigation` need at least one item, so an
 * empty page is `groups: []` (the schema's third way of being a feed).
 */
function withItems(feed: Opds2Feed): Opds2Feed {
  const empty = !feed.publications?.length && !feed.navigation?.length && !feed.groups?.length;
  const { publications, navigation, groups, ...rest } = feed;
  if (empty) return { ...rest, groups: [] };
  return {
    ...rest,
    ...(navigation?.length ? { navigation } : {}),
    ...(publications?.length ? { publications } : {}),
    ...(groups?.length ? { groups } : {}),
  };
}

/**
 * OPDS 2.0 (JSON) under `/opds/v2`: the root (navigation and groups), libraries, series lists, a series'
 * publications, recently added, keep reading, on deck, search, single publications, DiViNa manifests, page
 * images, OPDS Progression, and the same downloads and covers as OPDS 1.2.
 */
export function registerOpds2Routes(app: App, deps: Opds2Deps): void {
  const { catalog, validators, thumbnailWidth, publicUrl } = deps;
  const base = (req: FastifyRequest) => publicBaseUrl(req, publicUrl);
  const pub = (b: FeedBook) => publication(b, thumbnailWidth());
  const send = (req: FastifyRequest, reply: FastifyReply, doc: unknown, type = OPDS2_FEED) =>
    sendFeed(req, reply, validators, JSON.stringify(doc), type);
  const route = feedRouteBuilder(app, PREFIX, { tags, response: { 200: Json, 304: z.null(), ...errors } });

  const root = async (req: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(req);
    const firstPage = { page: 1, pageSize: ROOT_GROUP_SIZE, offset: 0 };
    // One group only (keep reading: the caller's own short list); recently added stays a navigation link, so the
    // root never sorts the whole catalog.
    const [libraries, reading] = await Promise.all([catalog.libraries(caller), catalog.keepReading(caller, firstPage)]);
    const group = (title: string, href: string, list: Listing<FeedBook>): Group[] =>
      list.data.length
        ? [
            {
              metadata: { title, numberOfItems: list.total },
              links: [{ rel: 'self', href, type: OPDS2_FEED, title }],
              publications: list.data.map(pub),
            },
          ]
        : [];
    return send(
      req,
      reply,
      withItems({
        metadata: { title: 'Colophon' },
        links: feedLinks(base(req), paths.root()),
        navigation: [
          { href: paths.keepReading(), type: OPDS2_FEED, title: say(req, 'Keep reading'), rel: 'subsection' },
          { href: paths.onDeck(), type: OPDS2_FEED, title: say(req, 'On deck'), rel: 'subsection' },
          { href: paths.recentlyAdded(), type: OPDS2_FEED, title: say(req, 'Recently added books'), rel: REL.sortNew },
          { href: paths.allSeries(), type: OPDS2_FEED, title: say(req, 'All series'), rel: 'subsection' },
          ...(holdsRule(caller.permissions, BROWSE_COLLECTIONS)
            ? [{ href: paths.collections(), type: OPDS2_FEED, title: say(req, 'Collections'), rel: 'subsection' }]
            : []),
          ...(holdsRule(caller.permissions, BROWSE_READ_LISTS)
            ? [{ href: paths.readLists(), type: OPDS2_FEED, title: say(req, 'Read lists'), rel: 'subsection' }]
            : []),
          { href: paths.wantToRead(), type: OPDS2_FEED, title: say(req, 'Want to read'), rel: 'subsection' },
          {
            href: paths.libraries(),
            type: OPDS2_FEED,
            title: say(req, 'Libraries'),
            rel: 'subsection',
            properties: { numberOfItems: libraries.length },
          },
          ...libraries.map(libraryLink),
        ],
        groups: group(say(req, 'Keep reading'), paths.keepReading(), reading),
      }),
    );
  };
  // The root answers at /opds/v2 and /opds/v2/catalog, with or without a trailing slash, never redirecting.
  app.route({
    method: 'GET',
    url: PREFIX,
    config: feedConfig('series-read'),
    schema: { summary: 'OPDS 2.0 catalog root', tags, response: { 200: Json, 304: z.null(), ...errors } },
    handler: root,
  });
  route('/catalog', 'OPDS 2.0 catalog root (alias)', 'series-read', root, { hide: true });

  route('/libraries', 'Libraries (navigation)', 'series-read', async (req, reply) => {
    const libraries = await catalog.libraries(callerOf(req));
    return send(
      req,
      reply,
      withItems({
        metadata: { title: say(req, 'Libraries'), numberOfItems: libraries.length },
        links: feedLinks(base(req), paths.libraries()),
        navigation: libraries.map(libraryLink),
      }),
    );
  });

  const seriesList = async (
    req: FeedRequest<z.ZodUnknown, typeof FeedPageQuery>,
    reply: FastifyReply,
    caller: Caller,
    libraryId: string | undefined,
    title: string,
  ) => {
    const page = feedPage(req.query);
    const { total, data } = await catalog.series(caller, libraryId, page);
    const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
    return send(
      req,
      reply,
      withItems({
        metadata: { title, ...paginationMetadata(page, total) },
        links: feedLinks(base(req), hrefFor(page.page), paginationLinks(page, total, hrefFor)),
        navigation: data.map(seriesLink),
      }),
    );
  };
  route(
    '/libraries/:id',
    "A library's series (navigation, paginated)",
    'series-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const library = await catalog.library(caller, req.params.id);
      return seriesList(req, reply, caller, library.id, library.name);
    },
    { params: IdParams, querystring: FeedPageQuery },
  );
  route(
    '/series',
    'All series (navigation, paginated)',
    'series-read',
    (req, reply) => seriesList(req, reply, callerOf(req), undefined, say(req, 'All series')),
    { querystring: FeedPageQuery },
  );

  const publicationList = (
    req: FastifyRequest,
    page: ReturnType<typeof feedPage>,
    listing: Listing<FeedBook>,
    title: string,
    extra: Link[] = [],
  ): Opds2Feed => {
    const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
    return withItems({
      metadata: { title, ...paginationMetadata(page, listing.total) },
      links: feedLinks(base(req), hrefFor(page.page), [...paginationLinks(page, listing.total, hrefFor), ...extra]),
      publications: listing.data.map(pub),
    });
  };
  route(
    '/series/:id',
    "A series' books by number (publications, paginated)",
    'books-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const page = feedPage(req.query);
      const series = await catalog.oneSeries(caller, req.params.id);
      const listing = await catalog.seriesBooks(caller, series, page);
      return send(
        req,
        reply,
        publicationList(req, page, listing, series.metadata.title, [
          { rel: 'up', href: paths.library(series.library_id), type: OPDS2_FEED },
        ]),
      );
    },
    { params: IdParams, querystring: FeedPageQuery },
  );

  /** A navigation feed of series given by a list (a collection's, the want-to-read shelf), in the list's order. */
  const seriesOf = async (
    req: FeedRequest<z.ZodUnknown, typeof FeedPageQuery>,
    reply: FastifyReply,
    title: string,
    listing: (page: ReturnType<typeof feedPage>) => Promise<Listing<SeriesView>>,
    extra: Link[] = [],
  ) => {
    const page = feedPage(req.query);
    const { total, data } = await listing(page);
    const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
    return send(
      req,
      reply,
      withItems({
        metadata: { title, ...paginationMetadata(page, total) },
        links: feedLinks(base(req), hrefFor(page.page), [...paginationLinks(page, total, hrefFor), ...extra]),
        navigation: data.map(seriesLink),
      }),
    );
  };
  const up = (href: string): Link[] => [{ rel: 'up', href, type: OPDS2_FEED }];

  route(
    '/collections',
    'Collections (navigation, paginated): shared ones and your own, by name',
    BROWSE_COLLECTIONS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { total, data } = await catalog.collections(callerOf(req), page);
      const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
      return send(
        req,
        reply,
        withItems({
          metadata: { title: say(req, 'Collections'), ...paginationMetadata(page, total) },
          links: feedLinks(base(req), hrefFor(page.page), [...paginationLinks(page, total, hrefFor), ...up(paths.root())]),
          navigation: data.map((c) => ({
            href: paths.collection(c.id),
            type: OPDS2_FEED,
            title: c.name,
            rel: 'subsection',
            properties: { numberOfItems: c.series_count },
          })),
        }),
      );
    },
    { querystring: FeedPageQuery },
  );
  route(
    '/collections/:id',
    "A collection's series, in the collection's order (navigation, paginated)",
    BROWSE_COLLECTIONS,
    async (req, reply) => {
      const caller = callerOf(req);
      const collection = await catalog.collection(caller, req.params.id);
      return seriesOf(
        req,
        reply,
        collection.name,
        (page) => catalog.collectionSeries(caller, collection.id, page),
        up(paths.collections()),
      );
    },
    { params: IdParams, querystring: FeedPageQuery },
  );
  route(
    '/readlists',
    'Read lists (navigation, paginated): shared ones and your own, by name',
    BROWSE_READ_LISTS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { total, data } = await catalog.readLists(callerOf(req), page);
      const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
      return send(
        req,
        reply,
        withItems({
          metadata: { title: say(req, 'Read lists'), ...paginationMetadata(page, total) },
          links: feedLinks(base(req), hrefFor(page.page), [...paginationLinks(page, total, hrefFor), ...up(paths.root())]),
          navigation: data.map((l) => ({
            href: paths.readList(l.id),
            type: OPDS2_FEED,
            title: l.name,
            rel: 'subsection',
            properties: { numberOfItems: l.book_count },
          })),
        }),
      );
    },
    { querystring: FeedPageQuery },
  );
  route(
    '/readlists/:id',
    "A read list's books, in list order (publications, paginated)",
    BROWSE_READ_LISTS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { list, books } = await catalog.readList(callerOf(req), req.params.id, page);
      return send(req, reply, publicationList(req, page, books, list.name, up(paths.readLists())));
    },
    { params: IdParams, querystring: FeedPageQuery },
  );
  route(
    '/want-to-read',
    'Your want-to-read series, newest first (navigation, paginated)',
    'series-read',
    async (req, reply) => {
      const caller = callerOf(req);
      return seriesOf(req, reply, say(req, 'Want to read'), (page) => catalog.wantToRead(caller, page), up(paths.root()));
    },
    { querystring: FeedPageQuery },
  );

  const bookList = (url: string, title: string, list: (caller: Caller, page: ReturnType<typeof feedPage>) => Promise<Listing<FeedBook>>) =>
    route(
      url,
      `${title} (publications, paginated)`,
      'books-read',
      async (req, reply) => {
        const page = feedPage(req.query);
        return send(req, reply, publicationList(req, page, await list(callerOf(req), page), say(req, title)));
      },
      { querystring: FeedPageQuery },
    );
  bookList('/books/recently-added', phrase('Recently added books'), (c, p) => catalog.recentlyAdded(c, p));
  bookList('/books/keep-reading', phrase('Keep reading'), (c, p) => catalog.keepReading(c, p));
  bookList('/books/on-deck', phrase('On deck'), (c, p) => catalog.onDeck(c, p));

  route(
    '/search',
    'Search series and books (groups: series, then books; both paged by `page`)',
    'books-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const query = req.query;
      const page = feedPage(query);
      const terms = query.query?.trim() ?? '';
      const { series, books } = await catalog.search(caller, terms, page);
      const hrefFor = (n: number) => pageHref(req.url, n, page.pageSize);
      const largest = Math.max(series.total, books.total);
      const groups: Group[] = [];
      if (series.data.length)
        groups.push({ metadata: { title: say(req, 'Series'), numberOfItems: series.total }, navigation: series.data.map(seriesLink) });
      if (books.data.length)
        groups.push({ metadata: { title: say(req, 'Books'), numberOfItems: books.total }, publications: books.data.map(pub) });
      return send(
        req,
        reply,
        withItems({
          metadata: {
            title: terms ? say(req, 'Search: {0}', [terms]) : say(req, 'Search'),
            numberOfItems: series.total + books.total,
            itemsPerPage: page.pageSize,
            currentPage: page.page,
          },
          links: feedLinks(base(req), hrefFor(page.page), paginationLinks(page, largest, hrefFor)),
          groups,
        }),
      );
    },
    { querystring: SearchQuery },
  );

  route(
    '/books/:id',
    'One publication',
    'books-read',
    async (req, reply) => send(req, reply, pub(await catalog.book(callerOf(req), req.params.id)), OPDS2_PUBLICATION),
    { params: IdParams },
  );

  route(
    '/books/:id/manifest',
    'DiViNa manifest of the page images (comics)',
    'pages-read',
    async (req, reply) => {
      const item = await catalog.book(callerOf(req), req.params.id);
      // The feeds link a manifest only for books of page images; any other book has none to claim DiViNa for.
      if (!isImageBook(item)) {
        throw new AppError(
          404,
          'NotFound',
          'This book has no DiViNa manifest: its pages are not images (or it could not be read); download it instead',
          {
            id: item.book.id,
          },
        );
      }
      return send(req, reply, divinaManifest(item, thumbnailWidth()), DIVINA_MANIFEST);
    },
    { params: IdParams },
  );

  app.route({
    method: 'GET',
    url: `${PREFIX}/books/:id/pages/:pageNumber`,
    config: feedConfig('pages-read'),
    schema: {
      summary: 'Page image (DiViNa reading order, or the PSE-style template)',
      description:
        'The DiViNa manifest links pages 1-based. The templated `http://vaemendis.net/opds-pse/stream` link sends `pse=1` with a 0-based ' +
        "`{pageNumber}` and streams JPEG, moving the caller's progress forward like OPDS 1.2 PSE. `maxWidth` scales the page down.",
      tags,
      params: PageParams,
      querystring: PageQuery,
      response: { 200: z.any().describe('Image bytes'), 304: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      const pse = req.query.pse === '1';
      const n = pse ? req.params.pageNumber + 1 : req.params.pageNumber;
      const lookup = await catalog.page(caller, req.params.id, n, {
        width: parseMaxWidth(req.query.maxWidth),
        format: pse ? 'jpeg' : req.query.convert,
      });
      if (pse && req.method === 'GET') await recordPageRead(catalog, caller, req.params.id, n, deviceHint(req), req.log, OPDS2_PROTOCOL);
      return sendImage(req, reply, lookup);
    },
  });

  app.route({
    method: 'GET',
    url: `${PREFIX}/books/:id/progression`,
    config: feedConfig('progress-read'),
    schema: {
      summary: 'OPDS Progression: where the caller is in the book',
      description:
        '`{modified, device{id,name}, progression 0..1, locator}` from the same progress record the native API shows; 404 before the first update.',
      tags,
      params: IdParams,
      response: { 200: z.any().describe(OPDS_PROGRESSION), ...errors },
    },
    handler: async (req, reply) => {
      const doc = await readProgression(catalog, callerOf(req), req.params.id);
      if (!doc) return reply.code(404).send({ error: 'NotFound', message: say(req, 'No progression for this book yet'), details: null });
      return reply.header('content-type', OPDS_PROGRESSION).header('cache-control', 'private, no-store').send(JSON.stringify(doc));
    },
  });

  app.route({
    method: 'PUT',
    url: `${PREFIX}/books/:id/progression`,
    config: feedConfig('progress-write'),
    schema: {
      summary: 'OPDS Progression: update where the caller is in the book',
      description:
        'Body `application/opds-progression+json` (or JSON): `{modified, device{id,name}, progression}`. Newer `modified` wins: if the stored progress ' +
        'changed after `modified`, 409 Conflict. Updates the one progress record per user and book that the native API also writes.',
      tags,
      params: IdParams,
      body: ProgressionBody,
      response: { 200: z.any().describe(OPDS_PROGRESSION), 409: ErrorBody, ...errors },
    },
    handler: async (req, reply) => {
      const doc = await writeProgression(catalog, callerOf(req), req.params.id, req.body, deviceHint(req));
      return reply.header('content-type', OPDS_PROGRESSION).send(JSON.stringify(doc));
    },
  });

  registerBookResources(app, PREFIX, catalog, false);
}
