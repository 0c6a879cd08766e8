/**
 * Libraries: the folders a household points Colophon at, and everything that turns files into a catalog.
 *
 * - (root): libraries themselves: path rules, scanning configuration and schedules, deletion and purge, the library
 *   thumbnail.
 * - scanning: scan control (start one per library, status, cancel, re-analysis) and, in `scanning/scanner/`, the
 *   scan itself: walk, compare with the catalog, analyse changed files, write series and books.
 * - watching: folder watching (`scanning_config.watch`): targeted scans of the folders that changed.
 * - explain: why a file is, or is not, a book, and why the book looks as it does.
 * - filesystem: folder browsing for an administrator choosing a library path, within `libraries.allowed_roots`.
 *
 * The face: what other areas may use of this one.
 */
export { ExplainRepository } from './explain/repository.js';
export { registerExplainRoutes } from './explain/routes.js';
export { ExplainService } from './explain/service.js';
export { registerFilesystemRoutes } from './filesystem/routes.js';
export { FilesystemService } from './filesystem/service.js';
export { LibraryRepository } from './repository.js';
export { registerLibraryRoutes } from './routes.js';
export { registerScanRoutes } from './scanning/routes.js';
export type { FileAnalyzer } from './scanning/scanner/analyzer.js';
export { DecisionRepository } from './scanning/scanner/decisions.js';
export { createMediaAnalyzer } from './scanning/scanner/media-analyzer.js';
export { ScanRepository } from './scanning/scanner/repository.js';
export { LibraryScanner } from './scanning/scanner/scanner.js';
export { registerScannerTasks } from './scanning/scanner/tasks.js';
export { ScanService } from './scanning/service.js';
export { importsLists } from './schemas.js';
export type { LibraryResponse, LibraryView } from './schemas.js';
export { LibraryService } from './service.js';
export type { BookCoverReader } from './service.js';
export { libraryFor } from './views.js';
export { WatchLeaseRepository } from './watching/repository.js';
export { registerWatchRoutes } from './watching/routes.js';
export { WatchService } from './watching/service.js';
