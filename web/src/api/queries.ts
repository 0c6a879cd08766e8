import { queryOptions } from '@tanstack/react-query';
import { api, ok } from './client';

/** Queries shared by several screens. Keys start with the resource, so live events can invalidate by prefix. */
export const setupStatusQuery = queryOptions({
  queryKey: ['setup-status'],
  queryFn: () => ok(api.GET('/api/v1/setup/status')),
  staleTime: 60_000,
});

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => ok(api.GET('/api/v1/auth/me')),
  staleTime: 5 * 60_000,
});

export const librariesQuery = queryOptions({
  queryKey: ['libraries'],
  queryFn: () => ok(api.GET('/api/v1/libraries', { params: { query: { pageSize: 500 } } })),
});

export const preferencesQuery = queryOptions({
  queryKey: ['preferences'],
  queryFn: () => ok(api.GET('/api/v1/user/preferences')),
  staleTime: 5 * 60_000,
});
