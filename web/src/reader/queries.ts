import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { preferencesQuery } from '../api/queries';
import { queryKeys } from '../api/query-keys';

/** The reader's queries, in a module of their own: the router's loader starts them from the first screen's bundle. */

export const bookQuery = (bookId: string) =>
  queryOptions({
    queryKey: queryKeys.books.detail(bookId),
    queryFn: () => ok(api.GET('/api/v1/books/{id}', { params: { path: { id: bookId } } })),
  });

export const pagesQuery = (bookId: string) =>
  queryOptions({
    queryKey: queryKeys.books.pages(bookId),
    queryFn: () => ok(api.GET('/api/v1/books/{id}/pages', { params: { path: { id: bookId } } })),
    staleTime: 5 * 60_000,
  });

export const seriesQuery = (seriesId: string | undefined) =>
  queryOptions({
    queryKey: queryKeys.series.detail(seriesId),
    queryFn: () => ok(api.GET('/api/v1/series/{id}', { params: { path: { id: seriesId as string } } })),
    enabled: !!seriesId,
  });

/**
 * What the reader needs before it can ask for the first page, asked when the Read link is pointed at or
 * clicked (the route's loader), alongside the reader's code rather than after it. Not the saved position: that
 * is asked afresh when the reader opens (another device may have moved it since).
 */
export function prefetchReader(queryClient: QueryClient, bookId: string): void {
  void queryClient.prefetchQuery(pagesQuery(bookId));
  void queryClient.prefetchQuery(preferencesQuery);
  void queryClient.fetchQuery(bookQuery(bookId)).then(
    (book) => queryClient.prefetchQuery(seriesQuery(book.series_id)),
    () => undefined,
  );
}
