import { i18n } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { nothingYouCanSee } from './visible-scope';

/**
 * The home page's shelves, each with the endpoint that fills it and the page that lists it all. `catalog`: the
 * shelf shows what the libraries hold (not what the user read), so when it is empty for a user who does not see
 * everything, the screen says that an administrator decides what the account shows. `title` and `empty` are
 * messages of the catalogue: shown through `i18n._`.
 */
export const SHELVES = {
  'keep-reading': {
    title: msg`Keep reading`,
    kind: 'books',
    path: '/api/v1/books/in-progress',
    empty: msg`Books you have started and not finished appear here. Open a book to start reading.`,
  },
  'on-deck': {
    title: msg`On deck`,
    kind: 'books',
    path: '/api/v1/books/on-deck',
    empty: msg`When you finish a book, the next one of its series waits here.`,
  },
  'want-to-read': {
    title: msg`Want to read`,
    kind: 'series',
    path: '/api/v1/me/want-to-read',
    empty: msg`Series you mark "Want to read" on their page wait here.`,
  },
  'recently-added-series': {
    title: msg`Recently added series`,
    kind: 'series',
    path: '/api/v1/series/recently-added',
    catalog: true,
    empty: msg`No series yet: add a library and scan it.`,
  },
  'recently-added-books': {
    title: msg`Recently added books`,
    kind: 'books',
    path: '/api/v1/books/recently-added',
    catalog: true,
    empty: msg`No books yet: add a library and scan it.`,
  },
  'recently-read': {
    title: msg`Recently read`,
    kind: 'books',
    path: '/api/v1/books/recently-read',
    empty: msg`Books you read appear here.`,
  },
} as const;

export type ShelfId = keyof typeof SHELVES;
export const SHELF_IDS = Object.keys(SHELVES) as ShelfId[];

/**
 * What an empty shelf says, in the active language: for a user who does not see everything, a catalog shelf says
 * why it may be empty.
 */
export function shelfEmptyText(id: ShelfId, seesAll: boolean): string {
  const shelf = SHELVES[id];
  return 'catalog' in shelf && !seesAll ? nothingYouCanSee() : i18n._(shelf.empty);
}
