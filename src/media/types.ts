import type { BookMetadata, MetadataFields, MetadataSource } from './metadata/metadata-types.js';

export type BookFormat = 'cbz' | 'cbr' | 'epub' | 'pdf';

/** One page as listed at analysis time (and stored by the scanner). Field names follow the API (snake_case). */
export interface PageInfo {
  /** 1-based position in reading order. */
  number: number;
  /** Entry path inside the archive (or the spine document of an EPUB, or `page-N` for a PDF). */
  file_name: string;
  media_type: string;
  /** Uncompressed size in bytes; 0 when it is only known after rendering (PDF). */
  size: number;
  width: number | null;
  height: number | null;
}

/** A page as cheap to list as the archive directory: no dimensions. */
export type PageEntry = Omit<PageInfo, 'width' | 'height'>;

export interface PageData {
  data: Buffer;
  mediaType: string;
}

export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Size wanted for a page; only renderers (PDF) use it, others return the stored bytes untouched. */
export interface RenderHint {
  width?: number;
  height?: number;
  format?: ImageFormat;
  signal?: AbortSignal;
}

/** Metadata a book carries inside itself, tagged with where it came from. */
export interface EmbeddedMetadata {
  source: Extract<MetadataSource, 'comicinfo' | 'opf' | 'pdf'>;
  fields: MetadataFields;
}

export interface BookReader {
  readonly format: BookFormat;
  /** Pages in reading order, without opening any of them. */
  listPages(): readonly PageEntry[];
  /** Pages with width and height read from each image header. */
  pages(signal?: AbortSignal): Promise<PageInfo[]>;
  /** Page `n` (1-based). Throws MediaError `not_found` outside 1..count. */
  readPage(n: number, hint?: RenderHint): Promise<PageData>;
  /**
   * Where page `n`'s bytes lie in the book's file when they are stored there as they are (an uncompressed zip
   * entry): they can be read again without opening the book. Null (or absent) otherwise.
   */
  storedPage?(n: number): Promise<{ start: number; length: number } | null>;
  /** Metadata embedded in the book, or null when there is none. */
  metadata(): Promise<EmbeddedMetadata | null>;
  /** Where the cover is: EPUB cover image, ComicInfo FrontCover page, or page 1. */
  coverRef(): Promise<CoverRef>;
  /** The cover image (rendered to the hint's size for PDF). */
  cover(hint?: RenderHint): Promise<PageData & CoverRef>;
  close(): Promise<void>;
}

export interface CoverRef {
  /** The page the cover is, or null for an EPUB cover image that is not a page. */
  pageNumber: number | null;
  fileName: string;
}

export interface BookAnalysis {
  format: BookFormat;
  size: number;
  mtimeMs: number;
  /** SHA-256 of the whole file, lowercase hex. */
  hash: string;
  /** KOReader's partial MD5 of the file (its sync identity for the book), lowercase hex: see koreader-md5.ts. */
  koreaderMd5: string;
  pages: PageInfo[];
  metadata: BookMetadata;
  cover: CoverRef | null;
  /** The cover image itself, when asked for. */
  coverImage?: PageData;
  /** Problems that did not stop the analysis (a broken ComicInfo.xml, an unreadable cover). */
  warnings: string[];
}
