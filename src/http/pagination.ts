import { z } from 'zod';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;

const positiveInt = z.coerce.number().int().min(1);

/**
 * Pagination query of every list: `page` (1-based, default 1), `pageSize` (default 50; values above 500 are
 * capped at 500), and `page_size` as the backward-compatible alias (`pageSize` wins when both are sent).
 * Always read from the query string, also for POST list endpoints.
 */
export const PaginationQuery = z.object({
  page: positiveInt.default(1).describe('1-based page number. Default 1.'),
  pageSize: positiveInt.optional().describe(`Items per page. Default ${DEFAULT_PAGE_SIZE}; larger values are capped at ${MAX_PAGE_SIZE}.`),
  page_size: positiveInt.optional().describe('Deprecated alias of pageSize, kept for backward compatibility.'),
});
export type PaginationQuery = z.infer<typeof PaginationQuery>;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export function pageRequest(query: { page?: number; pageSize?: number; page_size?: number }): PageRequest {
  const page = query.page ?? 1;
  const pageSize = Math.min(query.pageSize ?? query.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export const PageLinks = z.object({
  self: z.string(),
  first: z.string(),
  prev: z.string().optional(),
  next: z.string().optional(),
  last: z.string(),
});

/** The paginated envelope: camelCase names, relative links carrying page and pageSize. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    links: PageLinks,
  });
}

export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  links: z.infer<typeof PageLinks>;
}

/**
 * Builds the envelope. `url` is the request URL (path + query); links keep every other query parameter so a
 * client can follow them with its filters and sort intact. `totalPages` is at least 1 so `last` always exists.
 */
export function toPage<T>(url: string, request: PageRequest, total: number, data: T[]): Page<T> {
  const totalPages = Math.max(1, Math.ceil(total / request.pageSize));
  const [pathname, search = ''] = url.split('?', 2) as [string, string | undefined];
  const base = new URLSearchParams(search);
  base.delete('page');
  base.delete('pageSize');
  base.delete('page_size');
  const link = (page: number) => {
    const params = new URLSearchParams(base);
    params.set('page', String(page));
    params.set('pageSize', String(request.pageSize));
    return `${pathname}?${params.toString()}`;
  };
  return {
    data,
    page: request.page,
    pageSize: request.pageSize,
    total,
    totalPages,
    links: {
      self: link(request.page),
      first: link(1),
      ...(request.page > 1 ? { prev: link(Math.min(request.page - 1, totalPages)) } : {}),
      ...(request.page < totalPages ? { next: link(request.page + 1) } : {}),
      last: link(totalPages),
    },
  };
}
