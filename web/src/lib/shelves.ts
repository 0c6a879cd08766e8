import { NOTHING_YOU_CAN_SEE } from './content-access';

/**
 * The home page's shelves, each with the endpoint that fills it and the page that lists it all. `catalog`: the
 * shelf shows what the libraries hold (not what the user read), so when it is empty for a user who does not see
 * everything, the screen says that an administrator decides what the account shows.
 */
export const SHELVES = {
  'keep-reading': {
    title: 'Keep reading',
    kind: 'books',
    path: '/api/v1/books/in-progress',
    empty: 'Books you have started and not finished appear here. Open a book to start reading.',
  },
  'on-deck': {
    title: 'On deck',
    kind: 'books',
    path: '/api/v1/books/on-deck',
    empty: 'When you finish a book, the next one of its series waits here.',
  },
  'want-to-read': {
    title: 'Want to read',
    kind: 'series',
    path: '/api/v1/me/want-to-read',
    empty: 'Series you mark "Want to read" on their page wait here.',
  },
  'recently-added-series': {
    title: 'Recently added series',
    kind: 'series',
    path: '/api/v1/series/recently-added',
    catalog: true,
    empty: 'No series yet: add a library and scan it.',
  },
  'recently-added-books': {
    title: 'Recently added books',
    kind: 'books',
    path: '/api/v1/books/recently-added',
    catalog: true,
    empty: 'No books yet: add a library and scan it.',
  },
  'recently-read': { title: 'Recently read', kind: 'books', path: '/api/v1/books/recently-read', empty: 'Books you read appear here.' },
} as const;

export type ShelfId = keyof typeof SHELVES;
export const SHELF_IDS = Object.keys(SHELVES) as ShelfId[];

/** What an empty shelf says: for a user who does not see everything, a catalog shelf says why it may be empty. */
export function shelfEmptyText(id: ShelfId, seesAll: boolean): string {
  const shelf = SHELVES[id];
  return 'catalog' in shelf && !seesAll ? NOTHING_YOU_CAN_SEE : shelf.empty;
}
