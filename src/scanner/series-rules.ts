import path from 'node:path';
import type { SeriesTable } from '../db/tables/catalog.js';
import type { BookMetadata } from '../media/metadata-types.js';
import { titleFromFileName } from './analyzer.js';
import type { BookForSeries, SeriesRow } from './repository.js';

/**
 * Which series a book file belongs to. A folder that contains books is a series, keyed by its path relative
 * to the library root; nested folders are series of their own. A loose file directly in the library root is a
 * series by itself, keyed by the file's relative path and named by its metadata series name (ComicInfo, OPF,
 * PDF, then the series part parsed from the file name), else the file name without extension.
 */
export function seriesKeyOf(relPath: string): string {
  const dir = path.posix.dirname(relPath);
  return dir === '.' ? relPath : dir;
}

export function isLooseFile(relPath: string): boolean {
  return path.posix.dirname(relPath) === '.';
}

/** Name for a series first seen now (refreshSeries may refine it from all its books). */
export function initialSeriesName(key: string, relPath: string, metadata: Pick<BookMetadata, 'series'> | null): string {
  if (isLooseFile(relPath)) return metadata?.series?.trim() || titleFromFileName(relPath);
  return metadata?.series?.trim() || path.posix.basename(key);
}

export const sortNameOf = (name: string) => name.toLocaleLowerCase('en');

type StoredMetadata = Partial<BookMetadata>;

function parseMetadata(text: string): StoredMetadata {
  try {
    return JSON.parse(text) as StoredMetadata;
  } catch {
    return {};
  }
}

/** The series columns a scan derives from the series' present books. */
export type SeriesAggregate = Pick<
  SeriesTable,
  'name' | 'sort_name' | 'summary' | 'publisher' | 'status' | 'language' | 'age_rating' | 'reading_direction' | 'year' | 'genres' | 'tags' | 'book_count' | 'total_size' | 'total_pages'
>;

/**
 * Series fields derived from its present books, first book (by number, then path) first: the name follows
 * the metadata precedence of that book (embedded series name, then file name, then the folder name); single
 * values come from the first book that has one; genres and tags are the union; year is the earliest.
 */
export function aggregateSeries(series: Pick<SeriesRow, 'path' | 'name'>, books: readonly BookForSeries[]): SeriesAggregate {
  const ordered = [...books].sort(
    (a, b) => (a.number_sort ?? Number.MAX_VALUE) - (b.number_sort ?? Number.MAX_VALUE) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  const metas = ordered.map((b) => parseMetadata(b.metadata));
  const first = <K extends keyof StoredMetadata>(key: K): StoredMetadata[K] | null => {
    for (const m of metas) {
      const v = m[key];
      if (v !== null && v !== undefined && v !== '') return v;
    }
    return null;
  };
  const union = (key: 'genres' | 'tags') => JSON.stringify([...new Set(metas.flatMap((m) => m[key] ?? []))].sort());
  const years = metas.map((m) => m.year).filter((y): y is number => typeof y === 'number');
  const fallbackName = isLooseFile(series.path) ? titleFromFileName(series.path) : path.posix.basename(series.path);
  const name = (first('series') as string | null)?.trim() || (books.length === 0 ? series.name : fallbackName);
  return {
    name,
    sort_name: sortNameOf(name),
    summary: first('summary') as string | null,
    publisher: first('publisher') as string | null,
    status: first('status') as string | null,
    language: first('language') as string | null,
    age_rating: first('age_rating') as string | null,
    reading_direction: first('reading_direction') as string | null,
    year: years.length > 0 ? Math.min(...years) : null,
    genres: union('genres'),
    tags: union('tags'),
    book_count: books.length,
    total_size: books.reduce((n, b) => n + b.size, 0),
    total_pages: books.reduce((n, b) => n + b.page_count, 0),
  };
}
