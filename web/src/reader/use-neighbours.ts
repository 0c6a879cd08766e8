import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { neighbours, useSeriesBooks, type Book } from './data';

const route = getRouteApi('/books/$bookId/read');

export interface Neighbours {
  previous: Book | undefined;
  next: Book | undefined;
  /** What "next" follows: the book's series, or the read list the reader was opened from. */
  scope: { kind: 'series' } | { kind: 'read-list'; id: string; name: string };
}

/**
 * The books before and after this one. Opened from a read list (`?readList=`), they are the list's (its books in
 * its order; the next one the first not read after this one); otherwise the series'. A list that cannot be loaded,
 * or no longer holds the book, falls back to the series.
 */
export function useNeighbours(book: Book): Neighbours {
  const { readList } = route.useSearch();
  const list = useQuery({
    queryKey: queryKeys.readLists.detail(readList ?? ''),
    queryFn: () => ok(api.GET('/api/v1/read-lists/{id}', { params: { path: { id: readList as string } } })),
    enabled: !!readList,
  });
  const listBooks = list.data?.items.flatMap((i) => (i.book ? [i.book] : [])) ?? [];
  const inList = !!readList && listBooks.some((b) => b.id === book.id);
  const siblings = useSeriesBooks(readList && (list.isPending || inList) ? undefined : book.series_id);
  if (readList && inList && list.data) {
    return { ...neighbours(listBooks, book.id), scope: { kind: 'read-list', id: readList, name: list.data.name } };
  }
  return { ...neighbours(siblings.data?.data ?? [], book.id), scope: { kind: 'series' } };
}
