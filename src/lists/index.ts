/**
 * Lists: what people gather: collections of series, read lists of books, each one's want-to-read shelf.
 *
 * - core: what the three kinds of list share: how names compare, who looks, the right a shared list's change needs.
 * - collections: collections of series, private or shared, filtered by access inside.
 * - read-lists: read lists of books across series, their progress, CBL import and export, entries filled by scans.
 * - want-to-read: each user's want-to-read shelf of series.
 *
 * The face: what other areas may use of this one.
 */
export { listNameKey } from './core/lists.js';
export { registerCollectionRoutes } from './collections/routes.js';
export type { CollectionView } from './collections/schemas.js';
export { CollectionsService } from './collections/service.js';
export { fillReadListsOnBookEvents } from './read-lists/attach.js';
export { registerReadListRoutes } from './read-lists/routes.js';
export type { ReadListView } from './read-lists/schemas.js';
export { ReadListsService } from './read-lists/service.js';
export { registerWantToReadRoutes } from './want-to-read/routes.js';
export { WantToReadService } from './want-to-read/service.js';

import type { FastifyBaseLogger } from 'fastify';
import type { BooksService, SeriesService } from '../catalog/index.js';
import type { Database } from '../db/connection.js';
import type { EventBus } from '../events/bus.js';
import type { ComposedArea } from '../http/area.js';
import type { AccessService } from '../identity/index.js';
import { CollectionsRepository } from './collections/repository.js';
import { registerCollectionRoutes } from './collections/routes.js';
import { CollectionsService } from './collections/service.js';
import { fillReadListsOnBookEvents } from './read-lists/attach.js';
import { ReadListsRepository } from './read-lists/repository.js';
import { registerReadListRoutes } from './read-lists/routes.js';
import { ReadListsService } from './read-lists/service.js';
import { WantToReadRepository } from './want-to-read/repository.js';
import { registerWantToReadRoutes } from './want-to-read/routes.js';
import { WantToReadService } from './want-to-read/service.js';

export interface ListsAreaDeps {
  database: Database;
  log: FastifyBaseLogger;
  bus: EventBus;
  access: AccessService;
  series: SeriesService;
  books: BooksService;
}

export interface ListsServices {
  collections: CollectionsService;
  readLists: ReadListsService;
  wantToRead: WantToReadService;
}

export function compose(deps: ListsAreaDeps): ComposedArea<ListsServices> {
  const { database, access, series, books, bus } = deps;
  const shared = { access, series, books, bus };
  const collections = new CollectionsService(new CollectionsRepository(database), shared);
  const readLists = new ReadListsService(new ReadListsRepository(database), shared);
  const wantToRead = new WantToReadService(new WantToReadRepository(database), shared);
  return {
    services: { collections, readLists, wantToRead },
    wiring: {
      api: [
        (v1) => registerCollectionRoutes(v1, collections),
        (v1) => registerReadListRoutes(v1, readLists),
        (v1) => registerWantToReadRoutes(v1, wantToRead),
      ],
      // Read-list entries waiting for a book (from a CBL import) take it when a scan adds it.
      listen: (events) => fillReadListsOnBookEvents(events, readLists, deps.log),
    },
  };
}
