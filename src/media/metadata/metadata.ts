import { basename, dirname, resolve } from 'node:path';
import { type NameKind, parseFileName } from './filename.js';
import {
  type BookMetadata,
  METADATA_SOURCES,
  type MetadataField,
  type MetadataFields,
  type MetadataSource,
  type PrecedenceSource,
  type StoryArc,
} from './metadata-types.js';
import type { BookFormat, EmbeddedMetadata } from '../types.js';

export interface MetadataLayer {
  source: MetadataSource;
  fields: MetadataFields;
}

/**
 * A record with no values, as an object literal field by field: spread from a shared template, each record got a
 * map V8 could not keep, and every merged field then cost a map generalisation in the runtime (thousands per scan).
 */
function emptyMetadata(): BookMetadata {
  return {
    title: null,
    series: null,
    number: null,
    number_sort: null,
    volume: null,
    year: null,
    month: null,
    day: null,
    summary: null,
    publisher: null,
    authors: [],
    genres: [],
    tags: [],
    language: null,
    age_rating: null,
    page_count: null,
    isbn: null,
    links: [],
    reading_direction: null,
    external_ids: [],
    status: null,
    series_groups: [],
    story_arcs: [],
    sources: {},
  };
}

const FIELDS = Object.keys(emptyMetadata()).filter((key) => key !== 'sources') as MetadataField[];

/** Fields that only make sense together: the first source that has one of them gives all of them. */
const GROUPS: ReadonlyArray<readonly MetadataField[]> = [
  ['number', 'number_sort'],
  ['year', 'month', 'day'],
];
const UNGROUPED_FIELDS: readonly MetadataField[] = FIELDS.filter((field) => !GROUPS.some((group) => group.includes(field)));

function hasValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

const PRIORITY: Record<MetadataSource, number> = {
  file: -1,
  ...(Object.fromEntries(METADATA_SOURCES.map((source, i) => [source, i])) as Record<PrecedenceSource, number>),
};

/**
 * Merges what each source says, field by field, highest priority first (the spec's order: ComicInfo.xml,
 * EPUB OPF, PDF properties, file name, parent folder; `file` facts such as the page count above all).
 * A list field comes whole from one source: mixing two sources' author lists gives duplicates spelled twice.
 */
export function mergeMetadata(layers: readonly MetadataLayer[]): BookMetadata {
  const ordered = [...layers].sort((a, b) => PRIORITY[a.source] - PRIORITY[b.source]);
  const result = emptyMetadata();
  const target = result as unknown as Record<string, unknown>;
  // Plain loops: this runs for every book a scan analyses, and closures per field showed in its profile.
  for (const group of GROUPS) {
    const layer = firstWith(ordered, group[0]!);
    if (!layer) continue;
    for (const field of group) {
      const value = layer.fields[field];
      if (hasValue(value)) {
        target[field] = value;
        result.sources[field] = layer.source;
      }
    }
  }
  for (const field of UNGROUPED_FIELDS) {
    const layer = firstWith(ordered, field);
    if (!layer) continue;
    target[field] = layer.fields[field];
    result.sources[field] = layer.source;
  }
  return result;
}

function firstWith(layers: readonly MetadataLayer[], field: MetadataField): MetadataLayer | undefined {
  for (const layer of layers) if (hasValue(layer.fields[field])) return layer;
  return undefined;
}

export function nameKindOf(format: BookFormat | undefined, path: string): NameKind {
  if (format === 'epub' || format === 'pdf') return 'ebook';
  if (format === 'cbz' || format === 'cbr') return 'comic';
  return /\.(epub|pdf)$/i.test(path) ? 'ebook' : 'comic';
}

export function fileNameFields(path: string, kind: NameKind): MetadataFields {
  const parsed = parseFileName(basename(path), kind);
  const fields: MetadataFields = {};
  if (parsed.series) fields.series = parsed.series;
  // A book always has a title: the parsed one, or the name without its tags ("Batman 001").
  const title = parsed.title ?? parsed.clean_name;
  if (title) fields.title = title;
  if (parsed.volume !== null) fields.volume = parsed.volume;
  if (parsed.number !== null) {
    fields.number = parsed.number;
    fields.number_sort = parsed.number_sort;
  }
  if (parsed.year !== null) fields.year = parsed.year;
  if (parsed.month !== null) fields.month = parsed.month;
  if (parsed.day !== null) fields.day = parsed.day;
  if (parsed.authors.length > 0) fields.authors = parsed.authors.map((name) => ({ name, role: 'writer' }));
  return fields;
}

/**
 * The parent folder names the series ("a folder that contains books becomes a series"), unless the book sits
 * directly in the library root, whose name is the library's, not a series'.
 */
export function folderFields(path: string, libraryRoot?: string): MetadataFields {
  const parent = dirname(resolve(path));
  if (libraryRoot !== undefined && parent === resolve(libraryRoot)) return {};
  const name = basename(parent).trim();
  return name && parent !== dirname(parent) ? { series: name } : {};
}

export interface BookMetadataInputs {
  path: string;
  libraryRoot?: string;
  format?: BookFormat;
  embedded?: EmbeddedMetadata | null;
  /** Pages actually listed; overrides any declared count. */
  pageCount?: number;
}

/** The normalised metadata of one book from everything we know about it. */
export function buildBookMetadata(inputs: BookMetadataInputs): BookMetadata {
  const layers: MetadataLayer[] = [];
  if (inputs.pageCount !== undefined) layers.push({ source: 'file', fields: { page_count: inputs.pageCount } });
  if (inputs.embedded) layers.push({ source: inputs.embedded.source, fields: inputs.embedded.fields });
  layers.push({ source: 'filename', fields: fileNameFields(inputs.path, nameKindOf(inputs.format, inputs.path)) });
  layers.push({ source: 'folder', fields: folderFields(inputs.path, inputs.libraryRoot) });
  return mergeMetadata(layers);
}

/** What a book's stored metadata record says of the lists it belongs to (ComicInfo `SeriesGroup`, `StoryArc`...). */
export type ListMemberships = Pick<BookMetadata, 'series_groups' | 'story_arcs'>;

/**
 * The list memberships of a stored metadata record (`books.metadata`, parsed). A record stored before these
 * fields existed, or holding something else under their names, reads as belonging to no list.
 */
export function listMembershipsOf(record: unknown): ListMemberships {
  const stored = record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : {};
  const groups = Array.isArray(stored.series_groups) ? stored.series_groups : [];
  const arcs = Array.isArray(stored.story_arcs) ? stored.story_arcs : [];
  return {
    series_groups: groups.filter((g): g is string => typeof g === 'string' && g.trim() !== ''),
    story_arcs: arcs.filter(
      (a): a is StoryArc =>
        a !== null &&
        typeof a === 'object' &&
        typeof (a as StoryArc).name === 'string' &&
        (a as StoryArc).name.trim() !== '' &&
        ((a as StoryArc).number === null || typeof (a as StoryArc).number === 'string'),
    ),
  };
}
