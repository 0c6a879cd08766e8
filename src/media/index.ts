/** The media engine: pure library code (no database, no HTTP) used by the scanner and the page endpoints. */
export { AnalysisPool, DEFAULT_POOL_TIMEOUT_MS, DEFAULT_WORKER_HEAP_MB } from './analysis-pool.js';
export type { AnalysisPoolOptions, TaskOptions } from './analysis-pool.js';
export { analyzeFile } from './analyze.js';
export type { AnalyzeOptions } from './analyze.js';
export { toCatalogAnalysis } from './catalog-analysis.js';
export type { CatalogAnalysis } from './catalog-analysis.js';
export { parseComicInfo } from './comicinfo.js';
export type { ComicInfo } from './comicinfo.js';
export { cachedPath, getOrCreateCached, listCachedHashes, removeCachedForHash, writeAtomically } from './derived-cache.js';
export type { CachedFile } from './derived-cache.js';
export { BOOK_EXTENSIONS, detectFormat, detectFormatFromBytes, isBookFileName } from './detect.js';
export { MediaError, isMediaError } from './errors.js';
export type { MediaErrorKind } from './errors.js';
export { parseFileName } from './filename.js';
export type { NameKind, ParsedFileName } from './filename.js';
export { hashFile } from './hash.js';
export { probeImage } from './image-probe.js';
export type { ImageHeader } from './image-probe.js';
export { imageTypeFromName, isPageEntryName, sniffImageType } from './image-types.js';
export { MEDIA_TYPE_BY_FORMAT, formatFromMediaType, resizeImage } from './images.js';
export type { ResizeOptions } from './images.js';
export { DEFAULT_LIMITS, resolveLimits } from './limits.js';
export type { MediaLimits } from './limits.js';
export { buildBookMetadata, fileNameFields, folderFields, mergeMetadata } from './metadata.js';
export type { BookMetadataInputs, MetadataLayer } from './metadata.js';
export { METADATA_SOURCES } from './metadata-types.js';
export type {
  Author,
  AuthorRole,
  BookMetadata,
  ExternalId,
  MetadataField,
  MetadataFields,
  MetadataSource,
  ReadingDirection,
  WebLink,
} from './metadata-types.js';
export { parseOpf } from './opf.js';
export type { OpfPackage } from './opf.js';
export { openBook, withBook } from './open-book.js';
export { comparePageNames, sortPageNames } from './page-order.js';
export { DEFAULT_PDF_LONG_EDGE } from './pdf.js';
export { pdfPropertiesFromInfo, pdfPropertiesToFields } from './pdf-properties.js';
export type { PdfProperties } from './pdf-properties.js';
export type { ReaderOptions } from './reader-options.js';
export { getCover, renderPage } from './render-page.js';
export type { RenderPageOptions } from './render-page.js';
export { DEFAULT_THUMBNAIL_WIDTH, getThumbnail, readThumbnail, thumbnailFormatFor } from './thumbnails.js';
export type { Thumbnail, ThumbnailFormat, ThumbnailOptions } from './thumbnails.js';
export type {
  BookAnalysis,
  BookFormat,
  BookReader,
  CoverRef,
  EmbeddedMetadata,
  ImageFormat,
  PageData,
  PageEntry,
  PageInfo,
  RenderHint,
} from './types.js';
