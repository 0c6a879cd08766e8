import type { BookMetadata } from '../metadata/metadata-types.js';
import type { BookAnalysis, BookFormat } from '../types.js';

/**
 * A book analysis in the shape a catalog stores it: the page list and the metadata already serialised to the
 * JSON the database keeps. Built in the worker thread, so that what crosses to the main thread is a few strings
 * (cheap to clone) instead of an object graph the main thread would clone and then serialise again.
 */
export interface CatalogAnalysis {
  format: BookFormat;
  size: number;
  mtimeMs: number;
  /** SHA-256 of the whole file, lowercase hex. */
  hash: string;
  /** KOReader's partial MD5 of the file, lowercase hex. */
  koreaderMd5: string;
  pageCount: number;
  /** `JSON.stringify(analysis.pages)`. */
  pagesJson: string;
  /** The scalar metadata fields the catalog keeps in their own columns. */
  fields: CatalogFields;
  /** `JSON.stringify` of the metadata record and of its lists. */
  metadataJson: string;
  genresJson: string;
  tagsJson: string;
  authorsJson: string;
  /** YYYY-MM-DD from year, month and day (a missing month or day is 01); null without a year. */
  releaseDate: string | null;
  /** `JSON.stringify` of the links as `{label, url}` (an unlabelled link has label ''). */
  linksJson: string;
  /** Page number of the cover, when known. */
  coverPage: number | null;
  warnings: string[];
}

/** The metadata fields kept as book columns under their own names (title and series are derived, see the scanner). */
export type CatalogColumns = Pick<
  BookMetadata,
  'number' | 'number_sort' | 'volume' | 'year' | 'summary' | 'publisher' | 'language' | 'isbn'
>;
export type CatalogFields = Pick<BookMetadata, 'title' | 'series'> & CatalogColumns;

/** The book columns copied from metadata, all null without metadata (a book whose analysis failed). */
export function catalogColumns(m: CatalogColumns | null): CatalogColumns {
  return {
    number: m?.number ?? null,
    number_sort: m?.number_sort ?? null,
    volume: m?.volume ?? null,
    year: m?.year ?? null,
    summary: m?.summary ?? null,
    publisher: m?.publisher ?? null,
    language: m?.language ?? null,
    isbn: m?.isbn ?? null,
  };
}

export function toCatalogAnalysis(analysis: BookAnalysis): CatalogAnalysis {
  const m = analysis.metadata;
  return {
    format: analysis.format,
    size: analysis.size,
    mtimeMs: analysis.mtimeMs,
    hash: analysis.hash,
    koreaderMd5: analysis.koreaderMd5,
    pageCount: analysis.pages.length,
    pagesJson: JSON.stringify(analysis.pages),
    fields: { title: m.title, series: m.series, ...catalogColumns(m) },
    metadataJson: JSON.stringify(m),
    genresJson: JSON.stringify(m.genres ?? []),
    tagsJson: JSON.stringify(m.tags ?? []),
    authorsJson: JSON.stringify(m.authors ?? []),
    releaseDate: releaseDateOf(m.year, m.month, m.day),
    linksJson: JSON.stringify((m.links ?? []).map((l) => ({ label: l.label ?? '', url: l.url }))),
    coverPage: analysis.cover?.pageNumber ?? null,
    warnings: analysis.warnings,
  };
}

export function releaseDateOf(year: number | null | undefined, month?: number | null, day?: number | null): string | null {
  if (typeof year !== 'number') return null;
  const pad = (n: number | null | undefined) => String(typeof n === 'number' && n >= 1 ? n : 1).padStart(2, '0');
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`;
}
