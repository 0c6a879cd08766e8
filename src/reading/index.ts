/**
 * Reading: a person reading a book: its pages, their position in it, their devices and statistics.
 *
 * - pages: page lists and images; the reader pool, stored-page reads, grey pages, memory of recent derived images.
 * - progress: reading positions, their history (the ledger), restore, mark read or unread.
 * - devices: the caller's reading devices: list, rename, forget.
 * - stats: reading statistics.
 * - deliveries: books made for a reading device: a comic as a fixed-layout EPUB fitted to its screen, an EPUB as
 *   KEPUB with positions both ways between its spans and CFIs, covers at the device's size.
 * - book-resources: an EPUB's or CBZ's own files by path, and an EPUB as a Readium manifest.
 *
 * The face: what other areas may use of this one.
 */
export { registerBookResourceRoutes } from './book-resources/routes.js';
export { BookResourcesService } from './book-resources/service.js';
export { DeliveriesService } from './deliveries/service.js';
export type { ComicFit, DeliveredBook, GeneratedEpub } from './deliveries/service.js';
export { DevicesRepository } from './devices/repository.js';
export { registerDeviceRoutes } from './devices/routes.js';
export { DevicesService } from './devices/service.js';
export { ReaderPool } from './pages/reader-pool.js';
export { registerPageRoutes } from './pages/routes.js';
export { PagesService, parsePages } from './pages/service.js';
export type { ImageLookup } from './pages/service.js';
export { ProgressRepository } from './progress/repository.js';
export { registerProgressRoutes } from './progress/routes.js';
export type { ProgressView } from './progress/schemas.js';
export { ProgressService } from './progress/service.js';
export type { ProgressOrigin, ProgressWrite } from './progress/service.js';
export { StatsRepository } from './stats/repository.js';
export { registerStatsRoutes } from './stats/routes.js';
export { StatsService } from './stats/service.js';

import type { Config } from '../config/schema.js';
import type { Database } from '../db/connection.js';
import type { BookWithLibrary, BooksRepository, BooksService } from '../catalog/index.js';
import type { AccessService } from '../identity/index.js';
import type { ComposedArea } from '../http/area.js';
import type { IsolatedRenderer } from '../media/analysis/isolated-renderer.js';
import { DerivedCacheBudget, isResizedPage } from '../media/rendering/derived-cache-budget.js';
import { registerBookResourceRoutes } from './book-resources/routes.js';
import { BookResourcesService } from './book-resources/service.js';
import { DeliveriesService } from './deliveries/service.js';
import { DevicesRepository } from './devices/repository.js';
import { registerDeviceRoutes } from './devices/routes.js';
import { DevicesService } from './devices/service.js';
import { ReaderPool } from './pages/reader-pool.js';
import { registerPageRoutes } from './pages/routes.js';
import { PagesService } from './pages/service.js';
import { ProgressRepository } from './progress/repository.js';
import { registerProgressRoutes } from './progress/routes.js';
import { ProgressService } from './progress/service.js';
import { StatsRepository } from './stats/repository.js';
import { registerStatsRoutes } from './stats/routes.js';
import { StatsService } from './stats/service.js';

export interface ReadingDeps {
  config: Config;
  database: Database;
  /** PDF and CBR pages, made in worker threads. */
  renderer: IsolatedRenderer;
  cacheDir: string;
  thumbnailWidth: () => number;
  /** The catalog's books and its access rules. */
  bookRows: BooksRepository;
  books: BooksService;
  access: AccessService<BookWithLibrary>;
}

export interface ReadingServices {
  pages: PagesService;
  progress: ProgressService;
  stats: StatsService;
  devices: DevicesService;
  /** An EPUB's files by path and its Readium manifest, for the web reader and OPDS 2 clients. */
  bookResources: BookResourcesService;
  /** Books made for reading devices (Kobo's KEPUBs and fixed-layout EPUBs). */
  deliveries: DeliveriesService;
}

export function compose(deps: ReadingDeps): ComposedArea<ReadingServices> {
  const { config, database, access, bookRows } = deps;
  const readers = new ReaderPool({ maxOpen: config.cache.open_books });
  const derivedBudget = new DerivedCacheBudget(deps.cacheDir, config.cache.derived_max_mb * 1024 * 1024, isResizedPage);
  derivedBudget.prepare();
  const pages = new PagesService({
    books: bookRows,
    access,
    readers,
    renderer: deps.renderer,
    cacheDir: deps.cacheDir,
    thumbnailWidth: deps.thumbnailWidth,
    derivedBudget,
  });
  const progress = new ProgressService(new ProgressRepository(database), bookRows, access);
  const stats = new StatsService(new StatsRepository(database));
  const devices = new DevicesService(new DevicesRepository(database));
  const bookResources = new BookResourcesService(access, pages, progress);
  const deliveries = new DeliveriesService({ books: deps.books, pages, cacheDir: deps.cacheDir });
  return {
    services: { pages, progress, stats, devices, bookResources, deliveries },
    wiring: {
      api: [
        (v1) => registerDeviceRoutes(v1, devices),
        (v1) => registerPageRoutes(v1, pages),
        (v1) => registerProgressRoutes(v1, progress),
        (v1) => registerStatsRoutes(v1, stats),
        (v1) => registerBookResourceRoutes(v1, bookResources),
      ],
      close: () => readers.close(),
    },
  };
}
