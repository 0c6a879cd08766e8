import { queryKeys } from './query-keys';

/**
 * Which cached queries an entity event makes stale. Query keys start with the resource they list
 * (`['series', ...]`, `['books', ...]`); a book change also changes its series' counts and the home shelves.
 */
export function staleKeysFor(eventName: string): Array<readonly string[]> {
  // inbox_item_added, inbox_item_filed: Administration → Inbox (its keys are in screens/admin/inbox/keys.ts).
  if (eventName.startsWith('inbox_')) return [['inbox']];
  switch (eventName) {
    case 'book_created':
    case 'book_updated':
    case 'book_deleted':
      return [queryKeys.books.all, queryKeys.series.all, queryKeys.shelves.all, queryKeys.search.all, queryKeys.readLists.all];
    case 'series_created':
    case 'series_updated':
    case 'series_deleted':
      return [queryKeys.series.all, queryKeys.shelves.all, queryKeys.search.all, queryKeys.collections.all];
    case 'library_created':
    case 'library_updated':
    case 'library_deleted':
      return [queryKeys.libraries.all, queryKeys.series.all, queryKeys.books.all, queryKeys.shelves.all];
    case 'cover_updated':
      return [queryKeys.covers.all];
    default:
      return [];
  }
}
