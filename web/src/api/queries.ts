import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, ok } from './client';
import { queryKeys } from './query-keys';

/** Queries shared by several screens. Their keys come from `queryKeys`. */
export const setupStatusQuery = queryOptions({
  queryKey: queryKeys.setupStatus,
  queryFn: () => ok(api.GET('/api/v1/setup/status')),
  staleTime: 60_000,
});

export const meQuery = queryOptions({
  queryKey: queryKeys.me,
  queryFn: () => ok(api.GET('/api/v1/auth/me')),
  staleTime: 5 * 60_000,
});

export const librariesQuery = queryOptions({
  queryKey: queryKeys.libraries.all,
  queryFn: () => ok(api.GET('/api/v1/libraries', { params: { query: { pageSize: 500 } } })),
});

export const preferencesQuery = queryOptions({
  queryKey: queryKeys.preferences,
  queryFn: () => ok(api.GET('/api/v1/user/preferences')),
  staleTime: 5 * 60_000,
});

/**
 * The addresses other devices reach the server by: `server.public_url`, else the address this browser used, with the
 * server's LAN addresses for when that one is loopback (see lib/server-address.ts).
 */
export const serverAddressesQuery = queryOptions({
  queryKey: queryKeys.serverAddresses,
  queryFn: () => ok(api.GET('/api/v1/me/server-addresses')),
  staleTime: 5 * 60_000,
});

/** The series on the caller's "Want to read" shelf (the series page's toggle asks whether one is among them). */
export const wantToReadQuery = queryOptions({
  queryKey: queryKeys.shelves.shelf('want-to-read', 500),
  queryFn: () => ok(api.GET('/api/v1/me/want-to-read', { params: { query: { pageSize: 500 } } })),
});

/** The collections the caller sees, by name. */
export const collectionsQuery = queryOptions({
  queryKey: queryKeys.collections.list,
  queryFn: () => ok(api.GET('/api/v1/collections', { params: { query: { pageSize: 500 } } })),
});

/** The read lists the caller sees, by name. */
export const readListsQuery = queryOptions({
  queryKey: queryKeys.readLists.list,
  queryFn: () => ok(api.GET('/api/v1/read-lists', { params: { query: { pageSize: 500 } } })),
});

/** The API's largest page. */
const LARGEST_PAGE = 500;

/**
 * Every book of a series in reading order, for the series page, the book page and the reader's "next book": read
 * page after page until all are in, so that a series of more than 500 books (long manga, weekly webtoons) is
 * whole everywhere, not cut at the API's largest page.
 */
export const seriesBooksQuery = (seriesId: string | undefined) =>
  queryOptions({
    queryKey: queryKeys.books.ofSeries(seriesId),
    queryFn: async () => {
      const id = seriesId as string;
      const pageOf = (page: number) =>
        ok(api.GET('/api/v1/series/{id}/books', { params: { path: { id }, query: { page, pageSize: LARGEST_PAGE, sort: 'number,asc' } } }));
      const first = await pageOf(1);
      const data = [...first.data];
      for (let page = 2; data.length < first.total && page <= first.totalPages; page++) {
        const next = await pageOf(page);
        if (next.data.length === 0) break;
        data.push(...next.data);
      }
      return { ...first, data };
    },
    enabled: !!seriesId,
  });

/** One account preference's value (its default until the preferences have loaded). */
export function usePreference<T>(key: string, fallback: T): T {
  const { data } = useQuery(preferencesQuery);
  const found = data?.find((p) => p.key === key);
  return found ? (found.value as T) : fallback;
}
