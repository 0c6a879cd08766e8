import { ageOf, highestRating } from '../../../media/metadata/age-ratings.js';
import path from 'node:path';
import { parseJsonColumn } from '../../../db/json-column.js';
import type { SeriesTable } from '../../../db/tables/catalog.js';
import { METADATA_SOURCES, type BookMetadata, type PrecedenceSource } from '../../../media/metadata/metadata-types.js';
import { titleFromFileName } from './analyzer.js';
import { seriesNameSource } from '../../../catalog/index.js';
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
  return parseJsonColumn<StoredMetadata>(text, {});
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
  | 'age'
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
 * The version of the naming rule below, kept in each series' `metadata` document: a series named by an
 * older rule (or before names were recorded) is named again by the library's next scan, once.
 */
export const SERIES_NAMING_VERSION = 2;

interface Vote {
  count: number;
  /** The highest source (lowest rank) that gave this value. */
  best: number;
  /** First seen, in the books' order. */
  order: number;
}

const normalName = (name: string) => name.trim().toLocaleLowerCase('en');

/**
 * A series' name by agreement of its books. Each book votes with its own highest-priority series value
 * (ComicInfo > OPF > PDF properties > file name).
 * - A name the files state (ComicInfo `Series`, OPF/calibre series, `belongs-to-collection`, PDF properties)
 *   wins over any guess: the value most of the stating books hold, a tie going to the higher source, then to
 *   the value equal to the folder's name, then to the earlier book.
 * - With no stated name, a file-name parse names a folder only when at least two books and more than half of
 *   the folder's books parse to it: `hns_guide_final_v3.pdf` beside one other guide does not rename their
 *   folder. A loose file in the library root is a series by itself, so its parse names it.
 * - Otherwise the series is named after its folder (a loose file: its name without extension).
 */
export function agreedSeriesName(
  seriesPath: string,
  books: ReadonlyArray<Pick<StoredMetadata, 'series' | 'sources'>>,
  /** A loose file's series (keyed by the file's own path; a folder in the library root has no slash either). */
  loose = false,
): SeriesName {
  const folderName = loose ? titleFromFileName(seriesPath) : path.posix.basename(seriesPath);
  const fileNameRank = rank('filename');
  const stated = new Map<string, Vote>();
  const guessed = new Map<string, Vote>();
  let order = 0;
  for (const m of books) {
    const value = m.series?.trim();
    const source = m.sources?.series as PrecedenceSource | undefined;
    if (!value || !source || !NAMING_SOURCES.includes(source)) continue;
    const votes = rank(source) < fileNameRank ? stated : guessed;
    const vote = votes.get(value) ?? { count: 0, best: Number.MAX_SAFE_INTEGER, order: order++ };
    vote.count++;
    vote.best = Math.min(vote.best, rank(source));
    votes.set(value, vote);
  }
  const isFolderName = (value: string) => (normalName(value) === normalName(folderName) ? 0 : 1);
  const byAgreement = ([va, a]: [string, Vote], [vb, b]: [string, Vote]) =>
    b.count - a.count || a.best - b.best || isFolderName(va) - isFolderName(vb) || a.order - b.order;
  const candidates = stated.size > 0 ? [...stated] : [...guessed].filter(([, v]) => loose || (v.count >= 2 && v.count * 2 > books.length));
  const winner = candidates.sort(byAgreement)[0];
  if (winner) return { name: winner[0], source: METADATA_SOURCES[winner[1].best]! };
  return { name: folderName, source: 'folder' };
}

/** The `metadata` document of a series row: where its name came from, and by which version of the rule. */
export function seriesMetadataDocument(name: SeriesName): string {
  return JSON.stringify({ name_source: name.source, name_rule: SERIES_NAMING_VERSION });
}

/** Whether a series is to be named again by the next scan: named before the current rule, or never recorded. */
export function seriesNamedByOlderRule(metadataDocument: string | undefined): boolean {
  if (seriesNameSource(metadataDocument) === null) return true;
  const version = parseJsonColumn<unknown>(metadataDocument, undefined, (document) =>
    document && typeof document === 'object' ? (document as { name_rule?: unknown }).name_rule : undefined,
  );
  return typeof version !== 'number' || version < SERIES_NAMING_VERSION;
}

/**
 * Series fields derived from its present books, first book (by number, then path) first: the name by the
 * books' agreement (agreedSeriesName); the age rating is the highest of the books'; other single values come from
 * the first book that has one; genres and tags are the union; year is the earliest.
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
  const loose = books.length === 1 && books[0]!.path === series.path;
  const agreed = books.length === 0 ? null : agreedSeriesName(series.path, metas, loose);
  const name = agreed?.name ?? series.name;
  // A series is as old as its oldest-rated book; unrated ratings ("Rating Pending") only when no book is rated.
  const ageRating = highestRating(metas.map((m) => m.age_rating)) ?? (first('age_rating') as string | null);
  return {
    name,
    sort_name: sortNameOf(name),
    summary: first('summary') as string | null,
    publisher: first('publisher') as string | null,
    status: first('status') as string | null,
    language: first('language') as string | null,
    age_rating: ageRating,
    age: ageOf(ageRating) ?? null,
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
