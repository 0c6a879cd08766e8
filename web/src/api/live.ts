/**
 * Which cached queries an entity event makes stale. Query keys start with the resource they list
 * (`['series', ...]`, `['books', ...]`); a book change also changes its series' counts and the home shelves.
 */
export function staleKeysFor(eventName: string): string[][] {
  switch (eventName) {
    case 'book_created':
    case 'book_updated':
    case 'book_deleted':
      return [['books'], ['series'], ['shelves'], ['search']];
    case 'series_created':
    case 'series_updated':
    case 'series_deleted':
      return [['series'], ['shelves'], ['search']];
    case 'library_created':
    case 'library_updated':
    case 'library_deleted':
      return [['libraries'], ['series'], ['books'], ['shelves']];
    case 'cover_updated':
      return [['covers']];
    default:
      return [];
  }
}
