/**
 * Lists: what people gather: collections of series, read lists of books, each one's want-to-read shelf.
 *
 * - collections: collections of series, private or shared, filtered by access inside.
 * - read-lists: read lists of books across series, their progress, CBL import and export, entries filled by scans.
 * - want-to-read: each user's want-to-read shelf of series.
 *
 * The face: what other areas may use of this one.
 */
export { registerCollectionRoutes } from './collections/routes.js';
export type { CollectionView } from './collections/schemas.js';
export { CollectionsService } from './collections/service.js';
export { fillReadListsOnBookEvents } from './read-lists/attach.js';
export { registerReadListRoutes } from './read-lists/routes.js';
export type { ReadListView } from './read-lists/schemas.js';
export { ReadListsService } from './read-lists/service.js';
export { registerWantToReadRoutes } from './want-to-read/routes.js';
export { WantToReadService } from './want-to-read/service.js';
