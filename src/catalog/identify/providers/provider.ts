import type { BucketLimits } from '../../../http/rate-limit.js';
import type { ProviderClient } from '../client.js';
import type { MatchCandidate } from '../score.js';

/**
 * What every online database is to identification (decision 045): one module each, behind this interface. A
 * provider reads its own answers into entries; the identify service scores them, applies them and keeps them.
 */

/** What a library holds, as providers serve it. */
export const MEDIA_TYPES = ['manga', 'comics', 'books'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** What is sent to a provider: only a title, a year and an ISBN (and an author for a book), never anything else. */
export interface SearchQuery {
  title: string;
  year?: number | null;
  isbn?: string | null;
  author?: string | null;
}

/** Series fields a provider fills, in the API's names (catalog/metadata/fields.ts). */
export interface FetchedFields {
  title?: string;
  alternate_titles?: { label: string; title: string }[];
  summary?: string;
  publisher?: string;
  status?: 'ongoing' | 'ended' | 'abandoned' | 'hiatus';
  year?: number;
  genres?: string[];
  tags?: string[];
  age_rating?: string;
  language?: string;
  reading_direction?: 'ltr' | 'rtl' | 'vertical' | 'webtoon';
  authors?: { name: string; role: 'writer' | 'penciller' | 'author' | 'illustrator' | 'other' }[];
  links?: { label: string; url: string }[];
  total_book_count?: number;
}

/** One entry of a provider, read from its answer. */
export interface ProviderEntry {
  /** The provider's name (`anilist`…). */
  provider: string;
  external_id: string;
  /** The entry's page on the provider's site. */
  url: string | null;
  title: string;
  /** The facts scored against the series on disk. */
  candidate: MatchCandidate;
  fields: FetchedFields;
  /** Fetched by the server when applied, never linked to from a page. */
  cover_url: string | null;
  /** The same work in other databases, as the provider links to it (MangaDex: AniList, MangaUpdates). */
  linked_ids: { provider: string; id: string; url: string | null }[];
}

/** How a provider is told who calls: a header, or a query parameter (ComicVine's `api_key`). */
export interface Credentials {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface MetadataProvider {
  name: string;
  /** As people call it ("AniList"). */
  label: string;
  mediaTypes: readonly MediaType[];
  /** `required`: an administrator enters a key or token first. */
  key: 'none' | 'required';
  /** What the administrator enters, in words ("API key", "username:password"). */
  keyHint?: string;
  /** The provider's documented rate. */
  limits: BucketLimits;
  /** A documented quota over a longer window (ComicVine's hourly, Metron's daily): paused when it runs out. */
  quota?: { requests: number; windowHours: number };
  /** Where the provider documents its limits, for docs/metadata-sources.md and the admin screen. */
  limitsDoc: string;
  credentials?(key: string): Credentials;
  search(client: ProviderClient, query: SearchQuery): Promise<ProviderEntry[]>;
  get(client: ProviderClient, id: string): Promise<ProviderEntry>;
  /** A pasted address or id of this provider's entry, or null when it is not one. */
  idFrom(input: string): string | null;
  /** The cheapest request that proves the address and key work. */
  test(client: ProviderClient): Promise<void>;
  /** The entry's issues or volumes, where the provider has them (ComicVine's issues of a volume). */
  books?(client: ProviderClient, id: string): Promise<ProviderBook[]>;
}

/** One issue or volume of an entry: matched to a book of the series by its number. */
export interface ProviderBook {
  number: string;
  title?: string;
  release_date?: string;
  summary?: string;
  isbn?: string;
}

/** `value` when it is a non-empty string after trimming, else undefined (providers send "" and null alike). */
export const present = (value: string | null | undefined): string | undefined => {
  const t = value?.trim();
  return t ? t : undefined;
};

/** Drops undefined fields, so that an entry says only what the provider said. */
export function definedFields(fields: { [K in keyof FetchedFields]?: FetchedFields[K] | undefined }): FetchedFields {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  ) as FetchedFields;
}

/** ISO 3166 country of origin → the language of the original and its reading direction (manga read right to left). */
export function originOf(country: string | null | undefined): Pick<FetchedFields, 'language' | 'reading_direction'> {
  switch (country?.toUpperCase()) {
    case 'JP':
      return { language: 'ja', reading_direction: 'rtl' };
    case 'KR':
      return { language: 'ko' };
    case 'CN':
    case 'TW':
      return { language: 'zh' };
    default:
      return {};
  }
}
