import path from 'node:path';
import type { SeriesTable } from '../db/tables/catalog.js';
import { METADATA_SOURCES, type BookMetadata, type PrecedenceSource } from '../media/metadata/metadata-types.js';
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
  | 'name'
  | 'sort_name'
  | 'summary'
  | 'publisher'
  | 'status'
  | 'language'
  | 'age_rating'
  | 'reading_direction'
  | 'year'
  | 'genres'
  | 'tags'
  | 'book_count'
  | 'total_size'
  | 'total_pages'
  | 'metadata'
>;

/** Sources that can name a series by themselves; `folder` is what is left when none of them agrees. */
const NAMING_SOURCES: readonly PrecedenceSource[] = METADATA_SOURCES.filter((s) => s !== 'folder');
const rank = (source: PrecedenceSource) => METADATA_SOURCES.indexOf(source);

export interface SeriesName {
  name: string;
  /** Where the name came from: the source of the winning value, or `folder` (the folder's or loose file's name). */
  source: PrecedenceSource;
}

/**
 * A series' name by agreement of its books. Each book votes with its own highest-priority series value
 * (ComicInfo > OPF > PDF properties > file name); the value most books hold wins, a tie going to the value
 * with the higher source, then to the earlier book. A value that only file names give names the series only
 * when at least half of the books parse to it: one `Scan_0001.pdf` among six papers does not rename their
 * folder. Without a winner the series is named after its folder (a loose file: its name without extension).
 */
export function agreedSeriesName(seriesPath: string, books: ReadonlyArray<Pick<StoredMetadata, 'series' | 'sources'>>): SeriesName {
  const votes = new Map<string, { count: number; best: number; order: number }>();
  for (const m of books) {
    const value = m.series?.trim();
    const source = m.sources?.series;
    if (!value || !source || !NAMING_SOURCES.includes(source as PrecedenceSource)) continue;
    const vote = votes.get(value) ?? { count: 0, best: Number.MAX_SAFE_INTEGER, order: votes.size };
    vote.count++;
    vote.best = Math.min(vote.best, rank(source as PrecedenceSource));
    votes.set(value, vote);
  }
  const fileNameOnly = rank('filename');
  const eligible = [...votes].filter(([, v]) => v.best < fileNameOnly || v.count * 2 >= books.length);
  eligible.sort(([, a], [, b]) => b.count - a.count || a.best - b.best || a.order - b.order);
  const winner = eligible[0];
  if (winner) return { name: winner[0], source: METADATA_SOURCES[winner[1].best]! };
  return { name: isLooseFile(seriesPath) ? titleFromFileName(seriesPath) : path.posix.basename(seriesPath), source: 'folder' };
}

/** The `metadata` document of a series row: where its name came from. */
export function seriesMetadataDocument(name: SeriesName): string {
  return JSON.stringify({ name_source: name.source });
}

/** Where a series' name came from, read from its `metadata` document; null when never recorded. */
export function seriesNameSource(metadataDocument: string | undefined): PrecedenceSource | null {
  try {
    const source: unknown = (JSON.parse(metadataDocument ?? '{}') as { name_source?: unknown } | null)?.name_source;
    return METADATA_SOURCES.find((s) => s === source) ?? null;
  } catch {
    return null;
  }
}

/**
 * Series fields derived from its present books, first book (by number, then path) first: the name by the
 * books' agreement (agreedSeriesName); single values come from the first book that has one; genres and tags
 * are the union; year is the earliest.
 */
export function aggregateSeries(series: Pick<SeriesRow, 'path' | 'name' | 'metadata'>, books: readonly BookForSeries[]): SeriesAggregate {
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
  const agreed = books.length === 0 ? null : agreedSeriesName(series.path, metas);
  const name = agreed?.name ?? series.name;
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
    metadata: agreed ? seriesMetadataDocument(agreed) : series.metadata,
  };
}
