import { z } from 'zod';
import type { PageRequest } from '../../http/pagination.js';

/** Komga's default page size (Spring Data's) and the largest page it serves. */
export const KOMGA_DEFAULT_SIZE = 20;
export const KOMGA_MAX_SIZE = 500;
/** `unpaged=true` asks for everything; this bounds one answer. */
export const UNPAGED_LIMIT = 100_000;

/** A query value given once, repeated, or as a comma list (`library_id=a,b&library_id=c`): the flat list. */
export function listParam(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** `author=name,role`: the comma separates name and role, so these are never split as lists. */
export function authorParams(value: string | string[] | undefined): { name: string; role: string | null }[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((v) => {
    const comma = v.lastIndexOf(',');
    return comma === -1 ? { name: v.trim(), role: null } : { name: v.slice(0, comma).trim(), role: v.slice(comma + 1).trim() || null };
  });
}

const multi = z.union([z.string(), z.array(z.string())]).optional();
const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === true || v === 'true' || v === '1'));

/** Komga's paging query: 0-based `page`, `size`, `unpaged`, and repeatable `sort=property,direction`. */
export const KomgaPaging = z.object({
  page: z.coerce.number().int().min(0).optional(),
  size: z.coerce.number().int().min(1).optional(),
  unpaged: bool,
  sort: multi,
});
export type KomgaPaging = z.infer<typeof KomgaPaging>;

/** Filters of `GET series` and `GET books` (every one optional; lists as comma lists or repeated). */
export const KomgaListQuery = KomgaPaging.extend({
  search: z.string().optional(),
  library_id: multi,
  collection_id: multi,
  read_status: multi,
  status: multi,
  publisher: multi,
  language: multi,
  genre: multi,
  tag: multi,
  age_rating: multi,
  release_year: multi,
  sharing_label: multi,
  author: multi,
  media_status: multi,
  deleted: bool,
  complete: bool,
  oneshot: bool,
  search_regex: z.string().optional(),
  released_after: z.string().optional(),
});
export type KomgaListQuery = z.infer<typeof KomgaListQuery>;

export const KomgaBool = bool;
export const KomgaMulti = multi;

export interface KomgaPageRequest extends PageRequest {
  unpaged: boolean;
  /** 0-based page number as Komga reports it. */
  number: number;
}

export function komgaPageRequest(query: KomgaPaging, defaultSize = KOMGA_DEFAULT_SIZE): KomgaPageRequest {
  if (query.unpaged) return { unpaged: true, number: 0, page: 1, pageSize: UNPAGED_LIMIT, offset: 0 };
  const number = query.page ?? 0;
  const pageSize = Math.min(query.size ?? defaultSize, KOMGA_MAX_SIZE);
  return { unpaged: false, number, page: number + 1, pageSize, offset: number * pageSize };
}

export interface SortObject {
  empty: boolean;
  sorted: boolean;
  unsorted: boolean;
}

/** Spring Data's `Page<T>` as Komga serializes it. */
export interface KomgaPage<T> {
  content: T[];
  pageable: { offset: number; pageNumber: number; pageSize: number; paged: boolean; unpaged: boolean; sort: SortObject };
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  numberOfElements: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  sort: SortObject;
}

export function komgaPage<T>(request: KomgaPageRequest, total: number, content: T[], sorted: boolean): KomgaPage<T> {
  const sort: SortObject = { empty: !sorted, sorted, unsorted: !sorted };
  const size = request.unpaged ? content.length : request.pageSize;
  const totalPages = request.unpaged ? 1 : Math.ceil(total / request.pageSize);
  return {
    content,
    pageable: {
      offset: request.offset,
      pageNumber: request.number,
      pageSize: size,
      paged: !request.unpaged,
      unpaged: request.unpaged,
      sort,
    },
    totalElements: total,
    totalPages,
    number: request.number,
    size,
    numberOfElements: content.length,
    first: request.number === 0,
    last: request.number + 1 >= totalPages,
    empty: content.length === 0,
    sort,
  };
}

/** Pages an in-memory list (lists Komga serves that our services return whole). */
export function pageOfList<T>(request: KomgaPageRequest, all: T[], sorted = false): KomgaPage<T> {
  return komgaPage(request, all.length, all.slice(request.offset, request.offset + request.pageSize), sorted);
}

/** The first `sort` parameter whose property maps to one of ours: `field,direction` for our services, or none. */
export function mapSort(sort: string | string[] | undefined, fields: Record<string, string | null>): string | undefined {
  for (const raw of sort === undefined ? [] : Array.isArray(sort) ? sort : [sort]) {
    const [property = '', direction = 'asc'] = raw.split(',').map((s) => s.trim());
    // Own keys only: `sort=constructor` is an unknown property, skipped like any other.
    const field = Object.hasOwn(fields, property) ? fields[property] : undefined;
    if (field === undefined) continue;
    if (field === null) return undefined;
    return `${field},${direction.toLowerCase() === 'desc' ? 'desc' : 'asc'}`;
  }
  return undefined;
}

/** Komga's series sort properties and ours (`relevance` and `random` keep the default order). */
export const SERIES_SORTS: Record<string, string | null> = {
  'metadata.titleSort': 'name',
  'metadata.title': 'name',
  name: 'name',
  createdDate: 'date_added',
  created: 'date_added',
  lastModifiedDate: 'date_updated',
  lastModified: 'date_updated',
  'booksMetadata.releaseDate': 'release_date',
  'metadata.releaseDate': 'release_date',
  booksCount: 'book_count',
  readDate: 'date_read',
  relevance: null,
  random: null,
};

/** Komga's book sort properties and ours. */
export const BOOK_SORTS: Record<string, string | null> = {
  'metadata.numberSort': 'number',
  number: 'number',
  'metadata.title': 'title',
  name: 'title',
  createdDate: 'created_at',
  created: 'created_at',
  lastModifiedDate: 'modified_at',
  lastModified: 'modified_at',
  fileSize: 'file_size',
  sizeBytes: 'file_size',
  'media.pagesCount': 'page_count',
  relevance: null,
  random: null,
};
