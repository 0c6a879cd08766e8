import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageRequest } from '../../../http/pagination.js';
import type { App } from '../../../http/types.js';
import type { BROWSE_COLLECTIONS, BROWSE_READ_LISTS } from '../../../identity/index.js';

/**
 * Route settings every feed route shares: the permission is the route's own; `authChallenge: 'basic'` makes a
 * 401 carry `WWW-Authenticate: Basic realm="Colophon"` (readers only prompt for credentials after that), and an
 * unauthenticated request always gets that 401, never a 403 or a redirect (the auth hook's order).
 */
export function feedConfig(
  permission:
    'books-read' | 'series-read' | 'pages-read' | 'progress-read' | 'progress-write' | typeof BROWSE_COLLECTIONS | typeof BROWSE_READ_LISTS,
) {
  return { permission, authChallenge: 'basic' as const };
}

/** A feed request whose params and query string have the types of the route's zod schemas. */
export type FeedRequest<P extends z.ZodTypeAny = z.ZodUnknown, Q extends z.ZodTypeAny = z.ZodUnknown> = FastifyRequest<{
  Params: z.infer<P>;
  Querystring: z.infer<Q>;
}>;

/** What a feed route declares beyond its URL: params and query string schemas, and whether the docs hide it. */
export interface FeedRouteSchema<P extends z.ZodTypeAny, Q extends z.ZodTypeAny> {
  params?: P;
  querystring?: Q;
  hide?: boolean;
}

/**
 * The GET route builder of a feed: `route(url, summary, permission, handler, schema)` under `prefix`, with the
 * feed's shared schema parts (`shared`: tags, responses) after the summary, and the handler's request typed by
 * the route's own params and query string schemas.
 */
export function feedRouteBuilder(app: App, prefix: string, shared: Record<string, unknown>) {
  return <P extends z.ZodTypeAny = z.ZodUnknown, Q extends z.ZodTypeAny = z.ZodUnknown>(
    url: string,
    summary: string,
    permission: Parameters<typeof feedConfig>[0],
    handler: (req: FeedRequest<P, Q>, reply: FastifyReply) => Promise<unknown>,
    schema: FeedRouteSchema<P, Q> = {},
  ) =>
    // Fastify validated params and query against these same schemas: the one place their types are restated.
    app.route({
      method: 'GET',
      url: `${prefix}${url}`,
      config: feedConfig(permission),
      schema: { summary, ...shared, ...schema },
      handler: handler as (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
    });
}

const positiveInt = z.coerce.number().int().min(1);

const ABSENT_WHEN_EMPTY =
  'An empty value (`page=`) or an unfilled template (`page={startPage?}`) counts as absent, as on every feed parameter.';

/** `page` (1-based) and `pageSize` in the query string, as in the native API. */
export const FeedPageQuery = z.object({
  page: positiveInt.default(1).describe(`1-based page number. Default 1. ${ABSENT_WHEN_EMPTY}`),
  pageSize: positiveInt
    .optional()
    .describe(`Entries per page. Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}. ${ABSENT_WHEN_EMPTY}`),
});

export function feedPage(query: { page?: number; pageSize?: number }): PageRequest {
  const page = query.page ?? 1;
  const pageSize = Math.min(query.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The request URL with `page` (and `pageSize`) replaced; other query parameters (the search terms) are kept. */
export function pageHref(url: string, page: number, pageSize: number): string {
  const [pathname, search = ''] = url.split('?', 2) as [string, string | undefined];
  const params = new URLSearchParams(search);
  params.delete('page');
  params.delete('pageSize');
  params.set('page', String(page));
  if (pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(pageSize));
  return `${pathname.replace(/\/+$/, '') || '/'}?${params.toString()}`;
}
