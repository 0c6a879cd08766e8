/** The media engine: pure library code (no database, no HTTP) used by the scanner and the page endpoints. */
export { AnalysisPool, DEFAULT_POOL_TIMEOUT_MS, DEFAULT_WORKER_HEAP_MB } from './analysis/analysis-pool.js';
export type { AnalysisPoolOptions, TaskOptions } from './analysis/analysis-pool.js';
export { analyzeFile } from './analysis/analyze.js';
export type { AnalyzeOptions } from './analysis/analyze.js';
export { toCatalogAnalysis } from './analysis/catalog-analysis.js';
export type { CatalogAnalysis } from './analysis/catalog-analysis.js';
export { parseComicInfo } from './metadata/comicinfo.js';
export type { ComicInfo } from './metadata/comicinfo.js';
export { cachedPath, getOrCreateCached, listCachedHashes, removeCachedForHash, writeAtomically } from './rendering/derived-cache.js';
export type { CachedFile } from './rendering/derived-cache.js';
export { BOOK_EXTENSIONS, detectFormat, detectFormatFromBytes, isBookFileName } from './formats/detect.js';
export { MediaError, isMediaError } from './errors.js';
export type { MediaErrorKind } from './errors.js';
export { parseFileName } from './metadata/filename.js';
export type { NameKind, ParsedFileName } from './metadata/filename.js';
export { hashFile } from './analysis/hash.js';
export { probeImage } from './images/image-probe.js';
export type { ImageHeader } from './images/image-probe.js';
export { imageTypeFromName, isPageEntryName, sniffImageType } from './images/image-types.js';
export { MEDIA_TYPE_BY_FORMAT, formatFromMediaType, resizeImage } from './images/images.js';
export type { ResizeOptions } from './images/images.js';
export { DEFAULT_LIMITS, resolveLimits } from './limits.js';
export type { MediaLimits } from './limits.js';
export { buildBookMetadata, fileNameFields, folderFields, mergeMetadata } from './metadata/metadata.js';
export type { BookMetadataInputs, MetadataLayer } from './metadata/metadata.js';
export { METADATA_SOURCES } from './metadata/metadata-types.js';
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
} from './metadata/metadata-types.js';
export { parseOpf } from './metadata/opf.js';
export type { OpfPackage } from './metadata/opf.js';
export { openBook, withBook } from './formats/open-book.js';
export { comparePageNames, sortPageNames } from './formats/page-order.js';
export { DEFAULT_PDF_LONG_EDGE } from './formats/pdf.js';
export { pdfPropertiesFromInfo, pdfPropertiesToFields } from './metadata/pdf-properties.js';
export type { PdfProperties } from './metadata/pdf-properties.js';
export type { ReaderOptions } from './formats/reader-options.js';
export { getCover, renderPage } from './rendering/render-page.js';
export type { RenderPageOptions } from './rendering/render-page.js';
export { DEFAULT_THUMBNAIL_WIDTH, getThumbnail, readThumbnail, thumbnailFormatFor } from './rendering/thumbnails.js';
export type { Thumbnail, ThumbnailFormat, ThumbnailOptions } from './rendering/thumbnails.js';
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
