import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { definedFields, originOf, present, type FetchedFields, type MetadataProvider, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * MangaUpdates (api.mangaupdates.com/v1): `POST /series/search` and `GET /series/{id}`. A search result names the
 * title it matched (`hit_title`, often an alternate one): it is a title the candidate is scored by.
 */
const Genre = z.looseObject({ genre: z.string() });
const Record_ = z.looseObject({
  series_id: z.number().int(),
  title: z.string(),
  url: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  image: z
    .looseObject({ url: z.looseObject({ original: z.string().nullable().optional() }).nullable().optional() })
    .nullable()
    .optional(),
  type: z.string().nullable().optional(),
  year: z.union([z.string(), z.number()]).nullable().optional(),
  genres: z.array(Genre).nullable().optional(),
});
const SearchAnswer = z.looseObject({
  results: z.array(z.looseObject({ record: Record_, hit_title: z.string().nullable().optional() })),
});
const Series = Record_.extend({
  associated: z
    .array(z.looseObject({ title: z.string() }))
    .nullable()
    .optional(),
  categories: z
    .array(z.looseObject({ category: z.string(), votes: z.number().optional() }))
    .nullable()
    .optional(),
  status: z.string().nullable().optional(),
  completed: z.boolean().nullable().optional(),
  authors: z
    .array(z.looseObject({ name: z.string(), type: z.string().nullable().optional() }))
    .nullable()
    .optional(),
  publishers: z
    .array(z.looseObject({ publisher_name: z.string(), type: z.string().nullable().optional() }))
    .nullable()
    .optional(),
});

/** The kind of work as where it comes from: a manga is Japanese, a manhwa Korean, a manhua Chinese. */
const ORIGIN: Record<string, string> = { manga: 'JP', manhwa: 'KR', manhua: 'CN' };
/** Genres that say who the work is for, on the one age table. */
const ADULT = new Set(['hentai', 'adult', 'smut']);

function ageRating(genres: readonly string[]): string | undefined {
  const g = genres.map((x) => x.toLowerCase());
  if (g.some((x) => ADULT.has(x))) return 'Adults Only 18+';
  return g.includes('mature') ? 'Mature 17+' : undefined;
}

/** "43 Volumes (Ongoing)": the volume count and the state. */
function statusOf(
  text: string | null | undefined,
  completed: boolean | null | undefined,
): Pick<FetchedFields, 'status' | 'total_book_count'> {
  const first = (text ?? '').split('\n')[0] ?? '';
  const volumes = Number(/(\d+)\s+Volumes?/i.exec(first)?.[1]) || undefined;
  const state = /\((\w+)\)/.exec(first)?.[1]?.toLowerCase();
  const status =
    completed || state === 'complete'
      ? 'ended'
      : state === 'ongoing'
        ? 'ongoing'
        : state === 'hiatus'
          ? 'hiatus'
          : state === 'cancelled'
            ? 'abandoned'
            : undefined;
  return { status, total_book_count: status === 'ended' ? volumes : undefined };
}

function entryOf(r: z.infer<typeof Series>, hitTitle?: string | null): ProviderEntry {
  const url = present(r.url) ?? `https://www.mangaupdates.com/series.html?id=${r.series_id}`;
  const year = Number(r.year) || null;
  const alternates = (r.associated ?? []).flatMap((a) => (present(a.title) ? [a.title.trim()] : []));
  const genres = (r.genres ?? []).map((g) => g.genre);
  const origin = originOf(ORIGIN[(r.type ?? '').toLowerCase()]);
  const { status, total_book_count } = statusOf(r.status, r.completed);
  const original = r.publishers?.find((p) => p.type === 'Original') ?? r.publishers?.[0];
  return {
    provider: 'mangaupdates',
    external_id: String(r.series_id),
    url,
    title: r.title,
    candidate: {
      titles: [...new Set([r.title, ...(present(hitTitle) ? [hitTitle!.trim()] : []), ...alternates])],
      year,
      publisher: original?.publisher_name ?? null,
      count: total_book_count ?? null,
      language: origin.language ?? null,
    },
    fields: definedFields({
      title: r.title,
      alternate_titles: alternates.slice(0, 100).map((title) => ({ label: '', title })),
      summary: plainText(r.description?.replace(/\*\*|__/g, '')),
      publisher: original?.publisher_name,
      status,
      year: year ?? undefined,
      genres,
      tags: (r.categories ?? [])
        .filter((c) => (c.votes ?? 0) > 0)
        .slice(0, 20)
        .map((c) => c.category),
      age_rating: ageRating(genres),
      ...origin,
      authors: (r.authors ?? []).map((a) => ({ name: a.name, role: a.type === 'Artist' ? ('penciller' as const) : ('writer' as const) })),
      links: [{ label: 'MangaUpdates', url }],
      total_book_count,
    }),
    cover_url: present(r.image?.url?.original) ?? null,
    linked_ids: [],
  };
}

export function mangaUpdatesCandidates(body: unknown): ProviderEntry[] {
  return SearchAnswer.parse(body).results.map((r) => entryOf(r.record, r.hit_title));
}

export function mangaUpdatesSeries(body: unknown): ProviderEntry {
  return entryOf(Series.parse(body));
}

export const mangaupdates: MetadataProvider = {
  name: 'mangaupdates',
  label: 'MangaUpdates',
  mediaTypes: ['manga'],
  key: 'none',
  // The API documents no rate; one request a second keeps well within what its site tolerates.
  limits: { rate: 1, burst: 2 },
  limitsDoc: 'https://api.mangaupdates.com/',
  async search(client: ProviderClient, query) {
    return mangaUpdatesCandidates(
      await client.json('/series/search', {
        body: { search: query.title, perpage: 10, ...(query.year ? { year: query.year } : {}), exclude_filtered_genres: false },
      }),
    );
  },
  async get(client: ProviderClient, id) {
    return mangaUpdatesSeries(await client.json(`/series/${encodeURIComponent(id)}`));
  },
  idFrom(input) {
    const text = input.trim();
    // Its pages are /series/<id in base 36>/<name>; the API's id is the same number in base 10.
    const page = /^https?:\/\/(?:www\.)?mangaupdates\.com\/series\/([0-9a-z]+)(?:\/|$)/i.exec(text)?.[1];
    if (page) return String(Number.parseInt(page, 36));
    return (
      /^https?:\/\/(?:www\.)?mangaupdates\.com\/series\.html\?id=(\d+)/i.exec(text)?.[1] ??
      /^mangaupdates:(\d+)$/i.exec(text)?.[1] ??
      /^(\d{6,})$/.exec(text)?.[1] ??
      null
    );
  },
  async test(client) {
    SearchAnswer.parse(await client.json('/series/search', { body: { search: 'a', perpage: 1 } }));
  },
};
