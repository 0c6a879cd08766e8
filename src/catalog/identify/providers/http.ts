import { z } from 'zod';
import { AUTHOR_ROLES, READING_DIRECTIONS, SERIES_STATUSES } from '../../metadata/fields.js';
import type { ProviderClient } from '../client.js';
import { definedFields, type MediaType, type MetadataProvider, type ProviderEntry } from './provider.js';

/**
 * The HTTP provider contract (docs/metadata-sources.md): any small service that answers two JSON requests is a
 * source. `GET {base_url}/search?title=…[&year=…][&isbn=…]&media_type=…` answers `{results: [entry]}`, best first;
 * `GET {base_url}/series/{id}` answers one entry. An administrator adds it by address, with an optional header
 * (its name and a secret value) sent with every request.
 */
export const HttpProviderEntry = z
  .object({
    id: z.string().min(1).max(200).describe("The entry's id at the source: what `/series/{id}` takes."),
    title: z.string().min(1).max(500),
    url: z.string().url().nullish().describe("The entry's page, shown as a link."),
    alternate_titles: z.array(z.string().max(500)).max(100).optional(),
    year: z.number().int().min(1000).max(9999).nullish(),
    publisher: z.string().max(500).nullish(),
    count: z.number().int().min(0).nullish().describe('Volumes or issues the work has.'),
    language: z.string().max(50).nullish().describe('BCP 47 code of the original.'),
    isbns: z.array(z.string().max(20)).max(100).optional(),
    summary: z.string().max(20_000).nullish(),
    status: z.enum(SERIES_STATUSES).nullish(),
    genres: z.array(z.string().max(200)).max(100).optional(),
    tags: z.array(z.string().max(200)).max(200).optional(),
    age_rating: z.string().max(100).nullish().describe('As ComicInfo writes it ("Teen", "Mature 17+") or an age ("16+").'),
    reading_direction: z.enum(READING_DIRECTIONS).nullish(),
    authors: z
      .array(z.object({ name: z.string().min(1).max(200), role: z.enum(AUTHOR_ROLES) }))
      .max(200)
      .optional(),
    cover_url: z.string().url().nullish().describe('Fetched by the server when the entry is applied.'),
  })
  .meta({ id: 'HttpProviderEntry' });
export const HttpProviderSearchAnswer = z.object({ results: z.array(HttpProviderEntry).max(50) }).meta({ id: 'HttpProviderSearchAnswer' });

function entryOf(name: string, e: z.infer<typeof HttpProviderEntry>): ProviderEntry {
  const url = e.url ?? null;
  const authors = (e.authors ?? []).map((a) => ({
    name: a.name,
    role: (['writer', 'penciller', 'author', 'illustrator'] as const).find((r) => r === a.role) ?? ('other' as const),
  }));
  return {
    provider: name,
    external_id: e.id,
    url,
    title: e.title,
    candidate: {
      titles: [e.title, ...(e.alternate_titles ?? [])],
      year: e.year ?? null,
      publisher: e.publisher ?? null,
      count: e.count ?? null,
      language: e.language ?? null,
      isbns: e.isbns ?? [],
    },
    fields: definedFields({
      title: e.title,
      alternate_titles: (e.alternate_titles ?? []).map((title) => ({ label: '', title })),
      summary: e.summary ?? undefined,
      publisher: e.publisher ?? undefined,
      status: e.status ?? undefined,
      year: e.year ?? undefined,
      genres: e.genres,
      tags: e.tags,
      age_rating: e.age_rating ?? undefined,
      language: e.language ?? undefined,
      reading_direction: e.reading_direction ?? undefined,
      authors,
      links: url ? [{ label: name, url }] : undefined,
      total_book_count: e.count ?? undefined,
    }),
    cover_url: e.cover_url ?? null,
    linked_ids: [],
  };
}

/** A source of the HTTP provider contract, as configured by an administrator. */
export function httpProvider(name: string, mediaTypes: readonly MediaType[], headerName: string | null): MetadataProvider {
  return {
    name,
    label: name,
    mediaTypes,
    key: 'none',
    keyHint: headerName ? `value of the ${headerName} header` : undefined,
    // A service of one's own: its limits are its own; a few a second keeps a small one comfortable.
    limits: { rate: 5, burst: 10 },
    limitsDoc: 'docs/metadata-sources.md#the-http-provider-contract',
    credentials: (key) => (headerName ? { headers: { [headerName.toLowerCase()]: key } } : {}),
    async search(client: ProviderClient, query) {
      const q: Record<string, string> = { title: query.title, media_type: mediaTypes.join(',') };
      if (query.year) q.year = String(query.year);
      if (query.isbn) q.isbn = query.isbn;
      return HttpProviderSearchAnswer.parse(await client.json('/search', { query: q })).results.map((e) => entryOf(name, e));
    },
    async get(client: ProviderClient, id) {
      return entryOf(name, HttpProviderEntry.parse(await client.json(`/series/${encodeURIComponent(id)}`)));
    },
    idFrom(input) {
      const prefix = `${name}:`;
      return input.trim().toLowerCase().startsWith(prefix) ? input.trim().slice(prefix.length) || null : null;
    },
    async test(client) {
      HttpProviderSearchAnswer.parse(await client.json('/search', { query: { title: 'test', media_type: mediaTypes.join(',') } }));
    },
  };
}
