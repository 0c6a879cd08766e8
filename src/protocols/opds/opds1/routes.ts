import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorBody } from '../../../http/errors.js';
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
import { ATOM_ACQUISITION, ATOM_ENTRY, ATOM_NAVIGATION, OPENSEARCH_DESCRIPTION } from '../shared/media-types.js';
import { parseMaxWidth, recordPageRead } from '../shared/page-stream.js';
import { FeedPageQuery, feedConfig, feedPage, feedRouteBuilder, pageHref, type FeedRequest } from '../shared/routes.js';
import { bookEntry, latest, libraryEntry, navigationEntry, REL, renderEntry, renderFeed, seriesEntry, type AtomFeed } from './atom.js';
import { OPDS1_PREFIXES, Opds1Paths } from './paths.js';
import { el, textEl, xmlDocument } from './xml.js';

export interface Opds1Deps {
  catalog: FeedCatalog;
  validators: FeedValidators;
  /** `server.public_url`, the base of the OpenSearch templates. */
  publicUrl: string | undefined;
}

const tags = ['opds'];
const Xml = z.any().describe('Atom XML');
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const IdParams = z.object({ id: Uuid });
const SearchQuery = FeedPageQuery.extend({
  q: z.string().max(500).optional().describe('Search terms (OpenSearch `{searchTerms}`): series and books whose words start with them.'),
});
const PageStreamParams = z.object({ id: Uuid, pageNumber: PageNumberParam.describe('0-based page number (PSE).') });
const PageStreamQuery = z.object({
  maxWidth: z
    .string()
    .optional()
    .describe('Largest width wanted, pixels; a value that is not a number (an unfilled `{maxWidth}`) is ignored.'),
  convert: z
    .enum(['jpeg'])
    .optional()
    .describe('Convert the page to JPEG (set in the template when the book has pages PSE cannot declare).'),
});

/**
 * OPDS 1.2 (Atom) under `/opds/v1` and `/opds/v1.2`: navigation feeds (root, libraries, series lists),
 * acquisition feeds (a series' books, recently added, keep reading, on deck, search), OpenSearch, downloads,
 * covers and OPDS-PSE page streaming. The `/opds/v1.2` copy is hidden from the OpenAPI description.
 */
export function registerOpds1Routes(app: App, deps: Opds1Deps): void {
  for (const prefix of OPDS1_PREFIXES) registerTree(app, prefix, deps);
}

function registerTree(app: App, prefix: string, deps: Opds1Deps): void {
  const { catalog, validators, publicUrl } = deps;
  const paths = new Opds1Paths(prefix);
  const hide = prefix !== OPDS1_PREFIXES[0];
  const send = (req: FastifyRequest, reply: FastifyReply, feed: AtomFeed) =>
    sendFeed(req, reply, validators, renderFeed(paths, feed), feed.kind === 'navigation' ? ATOM_NAVIGATION : ATOM_ACQUISITION);

  const acquisitionList = (
    req: FastifyRequest,
    page: ReturnType<typeof feedPage>,
    listing: Listing<FeedBook>,
    head: Pick<AtomFeed, 'id' | 'title'>,
  ) => ({
    ...head,
    kind: 'acquisition' as const,
    selfHref: pageHref(req.url, page.page, page.pageSize),
    upHref: paths.catalog(),
    updated: latest(listing.data.map((b) => latest([b.book.updated_at, b.book.progress?.updated_at]))),
    pagination: { page, total: listing.total, hrefFor: (n: number) => pageHref(req.url, n, page.pageSize) },
    entries: listing.data.map((b) => bookEntry(paths, b)),
  });

  const root = async (req: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(req);
    const libraries = await catalog.libraries(caller);
    const updated = latest(libraries.flatMap((l) => [l.updated_at, l.last_scanned_at]));
    const fixed = (id: string, title: string, href: string, kind: 'navigation' | 'acquisition', content: string, rel?: string) =>
      navigationEntry({ id: `urn:colophon:opds:${id}`, title, updated, href, kind, content, rel });
    return send(req, reply, {
      id: 'urn:colophon:opds:catalog',
      title: 'Colophon',
      kind: 'navigation',
      selfHref: paths.catalog(),
      updated,
      entries: [
        fixed(
          'keep-reading',
          say(req, 'Keep reading'),
          paths.keepReading(),
          'acquisition',
          say(req, 'Books you started and have not finished'),
        ),
        fixed('on-deck', say(req, 'On deck'), paths.onDeck(), 'acquisition', say(req, 'The next book of the series you are reading')),
        fixed(
          'recently-added',
          say(req, 'Recently added books'),
          paths.recentlyAdded(),
          'acquisition',
          say(req, 'The newest books first'),
          REL.sortNew,
        ),
        fixed('series', say(req, 'All series'), paths.allSeries(), 'navigation', say(req, 'Every series, by name')),
        ...(holdsRule(caller.permissions, BROWSE_COLLECTIONS)
          ? [fixed('collections', say(req, 'Collections'), paths.collections(), 'navigation', say(req, 'Groups of series'))]
          : []),
        ...(holdsRule(caller.permissions, BROWSE_READ_LISTS)
          ? [fixed('readlists', say(req, 'Read lists'), paths.readLists(), 'navigation', say(req, 'Books across series, in reading order'))]
          : []),
        fixed(
          'want-to-read',
          say(req, 'Want to read'),
          paths.wantToRead(),
          'navigation',
          say(req, 'Series on your want-to-read shelf, newest first'),
        ),
        fixed(
          'libraries',
          'Libraries',
          paths.libraries(),
          'navigation',
          libraries.length === 1 ? say(req, '1 library') : say(req, '{0} libraries', [libraries.length]),
        ),
        ...libraries.map((l) => libraryEntry(paths, l)),
      ],
    });
  };

  const route = feedRouteBuilder(app, prefix, { tags, hide, response: { 200: Xml, 304: z.null(), ...errors } });

  // The catalog root answers at `<prefix>/catalog` and at `<prefix>` itself, with or without a trailing slash
  // (the router ignores trailing slashes), and never redirects: KOReader does not follow redirects.
  route('/catalog', 'OPDS 1.2 catalog root (navigation feed)', 'series-read', root);
  app.route({
    method: 'GET',
    url: prefix,
    config: feedConfig('series-read'),
    schema: { summary: 'OPDS 1.2 catalog root (alias)', tags, hide: true },
    handler: root,
  });

  route('/libraries', 'Libraries (navigation feed)', 'series-read', async (req, reply) => {
    const libraries = await catalog.libraries(callerOf(req));
    return send(req, reply, {
      id: 'urn:colophon:opds:libraries',
      title: say(req, 'Libraries'),
      kind: 'navigation',
      selfHref: paths.libraries(),
      upHref: paths.catalog(),
      updated: latest(libraries.flatMap((l) => [l.updated_at, l.last_scanned_at])),
      entries: libraries.map((l) => libraryEntry(paths, l)),
    });
  });

  const seriesList = async (
    req: FeedRequest<z.ZodUnknown, typeof FeedPageQuery>,
    reply: FastifyReply,
    caller: Caller,
    libraryId: string | undefined,
    head: Pick<AtomFeed, 'id' | 'title' | 'upHref'>,
  ) => {
    const page = feedPage(req.query);
    const { total, data } = await catalog.series(caller, libraryId, page);
    return send(req, reply, {
      ...head,
      kind: 'navigation',
      selfHref: pageHref(req.url, page.page, page.pageSize),
      updated: latest(data.map((s) => s.updated_at)),
      pagination: { page, total, hrefFor: (n) => pageHref(req.url, n, page.pageSize) },
      entries: data.map((s) => seriesEntry(paths, s)),
    });
  };

  route(
    '/libraries/:id',
    "A library's series (navigation feed, paginated)",
    'series-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const { id } = req.params;
      const library = await catalog.library(caller, id);
      return seriesList(req, reply, caller, id, { id: `urn:uuid:${library.id}`, title: library.name, upHref: paths.catalog() });
    },
    { params: IdParams, querystring: FeedPageQuery },
  );

  route(
    '/series',
    'All series (navigation feed, paginated)',
    'series-read',
    (req, reply) =>
      seriesList(req, reply, callerOf(req), undefined, {
        id: 'urn:colophon:opds:series',
        title: say(req, 'All series'),
        upHref: paths.catalog(),
      }),
    {
      querystring: FeedPageQuery,
    },
  );

  route(
    '/series/:id',
    "A series' books by number (acquisition feed, paginated)",
    'books-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const { id } = req.params;
      const page = feedPage(req.query);
      const series = await catalog.oneSeries(caller, id);
      const listing = await catalog.seriesBooks(caller, series, page);
      const feed = acquisitionList(req, page, listing, { id: `urn:uuid:${series.id}`, title: series.metadata.title });
      return send(req, reply, { ...feed, upHref: paths.library(series.library_id), updated: latest([feed.updated, series.updated_at]) });
    },
    { params: IdParams, querystring: FeedPageQuery },
  );

  /** A navigation feed of series given by a list (a collection's, the want-to-read shelf), in the list's order. */
  const seriesOf = async (
    req: FeedRequest<z.ZodUnknown, typeof FeedPageQuery>,
    reply: FastifyReply,
    listing: (page: ReturnType<typeof feedPage>) => Promise<Listing<SeriesView>>,
    head: Pick<AtomFeed, 'id' | 'title' | 'upHref'>,
  ) => {
    const page = feedPage(req.query);
    const { total, data } = await listing(page);
    return send(req, reply, {
      ...head,
      kind: 'navigation',
      selfHref: pageHref(req.url, page.page, page.pageSize),
      updated: latest(data.map((s) => s.updated_at)),
      pagination: { page, total, hrefFor: (n) => pageHref(req.url, n, page.pageSize) },
      entries: data.map((s) => seriesEntry(paths, s)),
    });
  };

  route(
    '/collections',
    'Collections (navigation feed, paginated): shared ones and your own, by name',
    BROWSE_COLLECTIONS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { total, data } = await catalog.collections(callerOf(req), page);
      return send(req, reply, {
        id: 'urn:colophon:opds:collections',
        title: say(req, 'Collections'),
        kind: 'navigation',
        selfHref: pageHref(req.url, page.page, page.pageSize),
        upHref: paths.catalog(),
        updated: latest(data.map((c) => c.updated_at)),
        pagination: { page, total, hrefFor: (n) => pageHref(req.url, n, page.pageSize) },
        entries: data.map((c) =>
          navigationEntry({
            id: `urn:uuid:${c.id}`,
            title: c.name,
            updated: c.updated_at,
            href: paths.collection(c.id),
            kind: 'navigation',
            content: [`${c.series_count} series`, c.summary].filter(Boolean).join('\n\n'),
            count: c.series_count,
            thumbnail: c.thumbnail_series_id ? paths.seriesThumbnail(c.thumbnail_series_id) : undefined,
          }),
        ),
      });
    },
    { querystring: FeedPageQuery },
  );

  route(
    '/collections/:id',
    "A collection's series, in the collection's order (navigation feed, paginated)",
    BROWSE_COLLECTIONS,
    async (req, reply) => {
      const caller = callerOf(req);
      const collection = await catalog.collection(caller, req.params.id);
      return seriesOf(req, reply, (page) => catalog.collectionSeries(caller, collection.id, page), {
        id: `urn:uuid:${collection.id}`,
        title: collection.name,
        upHref: paths.collections(),
      });
    },
    { params: IdParams, querystring: FeedPageQuery },
  );

  route(
    '/readlists',
    'Read lists (navigation feed, paginated): shared ones and your own, by name',
    BROWSE_READ_LISTS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { total, data } = await catalog.readLists(callerOf(req), page);
      return send(req, reply, {
        id: 'urn:colophon:opds:readlists',
        title: say(req, 'Read lists'),
        kind: 'navigation',
        selfHref: pageHref(req.url, page.page, page.pageSize),
        upHref: paths.catalog(),
        updated: latest(data.map((l) => l.updated_at)),
        pagination: { page, total, hrefFor: (n) => pageHref(req.url, n, page.pageSize) },
        entries: data.map((l) =>
          navigationEntry({
            id: `urn:uuid:${l.id}`,
            title: l.name,
            updated: l.updated_at,
            href: paths.readList(l.id),
            kind: 'acquisition',
            content: [`${l.book_count} ${l.book_count === 1 ? 'book' : 'books'}`, l.summary].filter(Boolean).join('\n\n'),
            count: l.book_count,
            thumbnail: l.cover_book_id ? paths.thumbnail(l.cover_book_id) : undefined,
          }),
        ),
      });
    },
    { querystring: FeedPageQuery },
  );

  route(
    '/readlists/:id',
    "A read list's books, in list order (acquisition feed, paginated)",
    BROWSE_READ_LISTS,
    async (req, reply) => {
      const page = feedPage(req.query);
      const { list, books } = await catalog.readList(callerOf(req), req.params.id, page);
      const feed = acquisitionList(req, page, books, { id: `urn:uuid:${list.id}`, title: list.name });
      return send(req, reply, { ...feed, upHref: paths.readLists(), updated: latest([feed.updated, list.updated_at]) });
    },
    { params: IdParams, querystring: FeedPageQuery },
  );

  route(
    '/want-to-read',
    'Your want-to-read series, newest first (navigation feed, paginated)',
    'series-read',
    async (req, reply) => {
      const caller = callerOf(req);
      return seriesOf(req, reply, (page) => catalog.wantToRead(caller, page), {
        id: 'urn:colophon:opds:want-to-read',
        title: say(req, 'Want to read'),
        upHref: paths.catalog(),
      });
    },
    { querystring: FeedPageQuery },
  );

  const bookList = (
    url: string,
    id: string,
    title: string,
    list: (caller: Caller, page: ReturnType<typeof feedPage>) => Promise<Listing<FeedBook>>,
  ) =>
    route(
      url,
      `${title} (acquisition feed, paginated)`,
      'books-read',
      async (req, reply) => {
        const page = feedPage(req.query);
        return send(
          req,
          reply,
          acquisitionList(req, page, await list(callerOf(req), page), { id: `urn:colophon:opds:${id}`, title: say(req, title) }),
        );
      },
      { querystring: FeedPageQuery },
    );
  bookList('/books/recently-added', 'recently-added', phrase('Recently added books'), (c, p) => catalog.recentlyAdded(c, p));
  bookList('/books/keep-reading', 'keep-reading', phrase('Keep reading'), (c, p) => catalog.keepReading(c, p));
  bookList('/books/on-deck', 'on-deck', phrase('On deck'), (c, p) => catalog.onDeck(c, p));

  route(
    '/search',
    'Search series and books (acquisition feed: matching series first, then books)',
    'books-read',
    async (req, reply) => {
      const caller = callerOf(req);
      const query = req.query;
      const page = feedPage(query);
      const terms = query.q?.trim() ?? '';
      const { series, books } = await catalog.search(caller, terms, page);
      // Both lists are paged with the same page number; the totals add up.
      const total = series.total + books.total;
      const largest = Math.max(series.total, books.total);
      return send(req, reply, {
        id: `urn:colophon:opds:search:${encodeURIComponent(terms)}`,
        title: terms ? say(req, 'Search: {0}', [terms]) : say(req, 'Search'),
        kind: 'acquisition',
        selfHref: pageHref(req.url, page.page, page.pageSize),
        upHref: paths.catalog(),
        updated: latest([...series.data.map((s) => s.updated_at), ...books.data.map((b) => b.book.updated_at)]),
        pagination: { page, total: largest, totalResults: total, hrefFor: (n) => pageHref(req.url, n, page.pageSize) },
        entries: [...series.data.map((s) => seriesEntry(paths, s)), ...books.data.map((b) => bookEntry(paths, b))],
      });
    },
    { querystring: SearchQuery },
  );

  // The templates are absolute URLs: calibre cannot follow a relative one. KOReader takes the first and fills
  // only {searchTerms}; the unfilled {startPage?} then counts as absent (dropUnfilledQueryParameters).
  route('/opensearch.xml', 'OpenSearch description of the search feed (absolute template URLs)', 'books-read', async (req, reply) => {
    const search = `${publicBaseUrl(req, publicUrl)}${paths.search()}`;
    const doc = xmlDocument(
      el('OpenSearchDescription', { xmlns: 'http://a9.com/-/spec/opensearch/1.1/' }, [
        textEl('ShortName', 'Colophon'),
        textEl('LongName', 'Colophon library search'),
        textEl('Description', say(req, 'Search series and books by title, author, publisher, genre or tag')),
        textEl('InputEncoding', 'UTF-8'),
        textEl('OutputEncoding', 'UTF-8'),
        el('Url', { type: ATOM_ACQUISITION, template: `${search}?q={searchTerms}&page={startPage?}`, pageOffset: 1 }),
        el('Url', { type: 'application/atom+xml', template: `${search}?q={searchTerms}` }),
      ]),
    );
    return sendFeed(req, reply, validators, doc, OPENSEARCH_DESCRIPTION);
  });

  route(
    '/books/:id',
    'One book (OPDS entry document)',
    'books-read',
    async (req, reply) => {
      const { id } = req.params;
      return sendFeed(req, reply, validators, renderEntry(paths, await catalog.book(callerOf(req), id)), ATOM_ENTRY);
    },
    { params: IdParams },
  );

  registerBookResources(app, prefix, catalog, hide);

  app.route({
    method: 'GET',
    url: `${prefix}/books/:id/pages/:pageNumber`,
    config: feedConfig('pages-read'),
    schema: {
      summary: 'OPDS-PSE page image',
      description:
        '`pageNumber` is 0-based (PSE); `maxWidth` scales the page down to at most that width. Streaming a page moves the ' +
        "caller's progress forward to it (see docs/opds.md, page streaming).",
      tags,
      hide,
      params: PageStreamParams,
      querystring: PageStreamQuery,
      response: { 200: z.any().describe('Image bytes'), 304: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      const n = req.params.pageNumber + 1;
      const width = parseMaxWidth(req.query.maxWidth);
      const lookup = await catalog.page(caller, req.params.id, n, { width, format: req.query.convert });
      if (req.method === 'GET') await recordPageRead(catalog, caller, req.params.id, n, deviceHint(req), req.log, 'opds-pse');
      return sendImage(req, reply, lookup);
    },
  });
}
