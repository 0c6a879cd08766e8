/**
 * Reading: a person reading a book: its pages, their position in it, their devices and statistics.
 *
 * - pages: page lists and images; the reader pool, stored-page reads, grey pages, memory of recent derived images.
 * - progress: reading positions, their history (the ledger), restore, mark read or unread.
 * - devices: the caller's reading devices: list, rename, forget.
 * - stats: reading statistics.
 * - book-resources: an EPUB's or CBZ's own files by path, and an EPUB as a Readium manifest.
 *
 * The face: what other areas may use of this one.
 */
export { registerBookResourceRoutes } from './book-resources/routes.js';
export { BookResourcesService } from './book-resources/service.js';
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
