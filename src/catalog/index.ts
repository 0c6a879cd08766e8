/**
 * Catalog: what the libraries hold, as readers browse it: series, books, their metadata, covers, duplicates and search.
 *
 * - series: series lists, details, books, covers, mark read or unread.
 * - books: book lists (plain, filtered, searched), details, covers, downloads, next and previous, On Deck.
 * - metadata: metadata editing: fields and their sources, locks, bulk changes, history and undo, ComicInfo write-back.
 * - covers: covers made ahead of time (`generate_thumbnails`) and covers a person chose.
 * - duplicates: duplicate books (same hash) and series (external id, normalised title), `detect_duplicates`.
 * - search: the filter and sort language of every list (condition trees compiled to SQL), full-text search,
 *   remembered list pages and totals.
 *
 * The face: what other areas may use of this one.
 */
export { contentDisposition, sendBookFile } from './books/download.js';
export { resolveBookFile } from './books/files.js';
export type { BookFile } from './books/files.js';
export { progressFraction } from './books/progress-fraction.js';
export { BooksRepository } from './books/repository.js';
export type { BookWithLibrary } from './books/repository.js';
export { registerBookRoutes } from './books/routes.js';
export { BookView } from './books/schemas.js';
export { BooksService } from './books/service.js';
export { CustomCoversRepository } from './covers/custom-repository.js';
export { CustomCoverService } from './covers/custom.js';
export { CoversRepository } from './covers/repository.js';
export { registerCoverRoutes } from './covers/routes.js';
export { CoverService } from './covers/service.js';
export { DuplicatesRepository } from './duplicates/repository.js';
export { registerDuplicateRoutes } from './duplicates/routes.js';
export { DuplicatesService } from './duplicates/service.js';
export { CoverHistoryLog } from './metadata/cover-history.js';
export { AUTHOR_ROLES, changedFields, withoutLocked } from './metadata/fields.js';
export type { EntityType } from './metadata/fields.js';
export { historyRow, seqStart } from './metadata/history-rows.js';
export { MetadataRepository } from './metadata/repository.js';
export { registerMetadataRoutes } from './metadata/routes.js';
export { BookUpdate, SeriesMetadataChanges } from './metadata/schemas.js';
export { MetadataService } from './metadata/service.js';
export type { MetadataChange } from './metadata/service.js';
export { WriteBackRepository } from './metadata/write-back-repository.js';
export { WRITE_BACK_TASK, WriteBackService } from './metadata/write-back.js';
export { escapeLike } from './search/condition-sql.js';
export { FullTextSearch } from './search/fts.js';
export { seriesNameSource } from './metadata/name-source.js';
export { SeriesRepository } from './series/repository.js';
export { registerSeriesRoutes } from './series/routes.js';
export { SeriesView } from './series/schemas.js';
export type { SeriesFacetField } from './series/schemas.js';
export { SeriesService } from './series/service.js';
