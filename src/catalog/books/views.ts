import { toBool } from '../../db/ids.js';
import { progressFraction } from './progress-fraction.js';
import { seriesNameSource } from '../metadata/name-source.js';
import type { BookViewRow, ProgressRow, SeriesNameRow } from './repository.js';
import type { MetadataSource } from '../../media/metadata/metadata-types.js';
import { BOOK_SOURCED_FIELDS, type BookSourcedField, type BookView } from './schemas.js';
import { parseJsonColumn } from '../../db/json-column.js';

export function parseList(text: string | null | undefined): string[] {
  return parseJsonColumn<string[]>(text, [], (value) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined,
  );
}

/** A JSON array of objects with these string fields (links, alternate titles); anything else is dropped. */
export function parseObjects<K extends string>(text: string | null | undefined, keys: readonly K[]): Record<K, string>[] {
  return parseJsonColumn<Record<K, string>[]>(text, [], (value) =>
    Array.isArray(value)
      ? value
          .filter((o): o is Record<string, unknown> => !!o && typeof o === 'object')
          .map((o) => Object.fromEntries(keys.map((k) => [k, typeof o[k] === 'string' ? o[k] : ''])) as Record<K, string>)
      : undefined,
  );
}

/** A series' entries in online databases (`external_ids`), with a missing address as null. */
export function parseExternalIds(text: string | null | undefined): { provider: string; id: string; url: string | null }[] {
  return parseObjects(text, ['provider', 'id', 'url']).map((e) => ({ ...e, url: e.url || null }));
}

function parseAuthors(text: string): { name: string; role: string }[] {
  return parseJsonColumn<{ name: string; role: string }[]>(text, [], (value) =>
    Array.isArray(value)
      ? value
          .filter((a): a is { name: unknown; role?: unknown } => !!a && typeof a === 'object' && 'name' in a)
          .map((a) => ({ name: String(a.name), role: typeof a.role === 'string' ? a.role : 'other' }))
      : undefined,
  );
}

export function bookView(
  row: BookViewRow,
  progress: ProgressRow | undefined,
  series: SeriesNameRow | undefined,
  locks: Record<string, true> = {},
): BookView {
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return {
    id: row.id,
    series_id: row.series_id,
    library_id: row.library_id,
    title: row.title,
    number: row.number,
    volume: num(row.volume),
    path: row.path,
    file_name: row.file_name,
    file_size: Number(row.size),
    format: row.format,
    page_count: Number(row.page_count),
    hash: row.hash,
    metadata: {
      title: row.title,
      summary: row.summary,
      number: row.number,
      volume: num(row.volume),
      year: num(row.year),
      publisher: row.publisher,
      language: row.language,
      isbn: row.isbn,
      genres: parseList(row.genres),
      tags: parseList(row.tags),
      authors: parseAuthors(row.authors),
      number_sort: num(row.number_sort),
      release_date: row.release_date,
      links: parseObjects(row.links, ['label', 'url']),
      series: series?.name ?? null,
      sources: { series: series ? seriesNameSource(series.metadata) : null },
    },
    locks,
    analysis_error: row.analysis_error,
    file_modified_at: new Date(Number(row.mtime_ms)).toISOString(),
    created_at: row.created_at,
    updated_at: row.updated_at,
    progress: progress
      ? {
          current_page: progress.current_page,
          is_completed: toBool(progress.is_completed),
          progress: progressFraction(progress.current_page, Number(row.page_count), toBool(progress.is_completed)),
          updated_at: progress.updated_at,
          completed_at: progress.completed_at,
        }
      : null,
  };
}

/** The source of each shown field, from the book's stored metadata record (null: no source gave it). */
export function fieldSources(metadataJson: string): Record<BookSourcedField, MetadataSource | null> {
  // No sources known from a record without them or an unreadable one (not the scanner's, or an old one).
  const recorded = parseJsonColumn<Partial<Record<string, MetadataSource>>>(metadataJson, {}, (record) => {
    const sources = record && typeof record === 'object' ? (record as { sources?: unknown }).sources : undefined;
    return sources && typeof sources === 'object' ? (sources as Partial<Record<string, MetadataSource>>) : undefined;
  });
  return Object.fromEntries(BOOK_SOURCED_FIELDS.map((field) => [field, recorded[field] ?? null])) as Record<
    BookSourcedField,
    MetadataSource | null
  >;
}
