import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { definedFields, originOf, present, type MetadataProvider, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * MangaDex (api.mangadex.org): `GET /manga?title=…` and `GET /manga/{id}`, with the cover and the authors included.
 * Its answers are checked with zod on the fields identification reads and loose elsewhere, since MangaDex adds
 * fields. MangaDex asks for a real User-Agent and not to be hot-linked: covers are fetched by the server.
 */
const LocalizedString = z.record(z.string(), z.string());

const Relationship = z.looseObject({
  id: z.string(),
  type: z.string(),
  attributes: z.looseObject({ name: z.string().optional(), fileName: z.string().optional() }).nullable().optional(),
});

const Tag = z.looseObject({
  attributes: z.looseObject({ name: LocalizedString, group: z.string() }),
});

const Manga = z.looseObject({
  id: z.string(),
  type: z.literal('manga'),
  relationships: z.array(Relationship).default([]),
  attributes: z.looseObject({
    title: LocalizedString,
    altTitles: z.array(LocalizedString).default([]),
    description: z
      .union([LocalizedString, z.array(z.never())])
      .nullable()
      .optional(),
    originalLanguage: z.string().nullable().optional(),
    year: z.number().int().nullable().optional(),
    lastVolume: z.string().nullable().optional(),
    contentRating: z.enum(['safe', 'suggestive', 'erotica', 'pornographic']).nullable().optional(),
    status: z.string().nullable().optional(),
    links: z.record(z.string(), z.string()).nullable().optional(),
    tags: z.array(Tag).default([]),
  }),
});

export const MangaDexList = z.looseObject({ result: z.literal('ok'), data: z.array(Manga), total: z.number().int() });
export const MangaDexEntry = z.looseObject({ result: z.literal('ok'), data: Manga });

/** MangaDex's audience ratings on the one age table (media/metadata/age-ratings.ts). */
const AGE_RATING = { safe: 'Everyone', suggestive: 'Teen', erotica: 'Mature 17+', pornographic: 'Adults Only 18+' } as const;
const STATUS = { ongoing: 'ongoing', completed: 'ended', hiatus: 'hiatus', cancelled: 'abandoned' } as const;
/** MangaDex's `links` keys of databases that name the same work, as Colophon's provider names. */
const LINKED: Record<string, (id: string) => { provider: string; id: string; url: string } | null> = {
  al: (id) => ({ provider: 'anilist', id, url: `https://anilist.co/manga/${id}` }),
  // MangaUpdates' page id (base 36) is its API's id in base 10; an old numeric id names nothing the API knows.
  mu: (id) =>
    /^[0-9a-z]+$/.test(id) && !/^\d+$/.test(id)
      ? { provider: 'mangaupdates', id: String(Number.parseInt(id, 36)), url: `https://www.mangaupdates.com/series/${id}` }
      : null,
  mal: (id) => ({ provider: 'myanimelist', id, url: `https://myanimelist.net/manga/${id}` }),
};

/** The request of a search by title, with the relationships a candidate shows (cover, authors). */
export const mangaDexSearch = (title: string) => ({
  query: { title, limit: '10', 'includes[]': ['cover_art', 'author', 'artist'], 'order[relevance]': 'desc' },
});

/** The entries of a `/manga` list answer, in MangaDex's order; an answer of another shape is refused (ZodError). */
export function mangaDexCandidates(body: unknown): ProviderEntry[] {
  return MangaDexList.parse(body).data.map(entryOf);
}

/** The entry of a `/manga/{id}` answer (a provider URL or id pasted by a person). */
export function mangaDexCandidate(body: unknown): ProviderEntry {
  return entryOf(MangaDexEntry.parse(body).data);
}

function entryOf(manga: z.infer<typeof Manga>): ProviderEntry {
  const a = manga.attributes;
  const main = a.title.en ?? Object.values(a.title)[0] ?? '';
  const titles = [...new Set([...Object.values(a.title), ...a.altTitles.flatMap((t) => Object.values(t))])];
  const lastVolume = Number.parseInt(a.lastVolume ?? '', 10);
  const count = Number.isFinite(lastVolume) && lastVolume > 0 ? lastVolume : null;
  const cover = manga.relationships.find((r) => r.type === 'cover_art');
  const url = `https://mangadex.org/title/${manga.id}`;
  const description = a.description && !Array.isArray(a.description) ? (a.description.en ?? null) : null;
  const tagNames = (group: string) => a.tags.filter((t) => t.attributes.group === group).flatMap((t) => t.attributes.name.en ?? []);
  const authors = manga.relationships.flatMap((r) =>
    (r.type === 'author' || r.type === 'artist') && r.attributes?.name
      ? [{ name: r.attributes.name, role: r.type === 'author' ? ('writer' as const) : ('penciller' as const) }]
      : [],
  );
  const links = a.links ?? {};
  return {
    provider: 'mangadex',
    external_id: manga.id,
    url,
    title: main,
    candidate: {
      titles: [main, ...titles.filter((t) => t !== main)],
      year: a.year ?? null,
      count,
      language: a.originalLanguage ?? null,
    },
    fields: definedFields({
      title: main,
      alternate_titles: a.altTitles.flatMap((t) => Object.entries(t).map(([label, title]) => ({ label, title }))).slice(0, 100),
      summary: plainText(description),
      status: a.status ? STATUS[a.status as keyof typeof STATUS] : undefined,
      year: a.year ?? undefined,
      genres: tagNames('genre'),
      tags: tagNames('theme'),
      age_rating: a.contentRating ? AGE_RATING[a.contentRating] : undefined,
      language: present(a.originalLanguage),
      reading_direction: originOf(a.originalLanguage === 'ja' ? 'JP' : null).reading_direction,
      authors: authors.filter((x, i) => authors.findIndex((y) => y.name === x.name && y.role === x.role) === i),
      links: [{ label: 'MangaDex', url }],
      total_book_count: a.status === 'completed' && count ? count : undefined,
    }),
    cover_url: cover?.attributes?.fileName ? `https://uploads.mangadex.org/covers/${manga.id}/${cover.attributes.fileName}` : null,
    linked_ids: Object.entries(LINKED).flatMap(([key, link]) => {
      const found = links[key] ? link(links[key]) : null;
      return found ? [found] : [];
    }),
  };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

export const mangadex: MetadataProvider = {
  name: 'mangadex',
  label: 'MangaDex',
  mediaTypes: ['manga'],
  key: 'none',
  // "~5 requests per second per IP" (api.mangadex.org/docs/2-limitations/).
  limits: { rate: 5, burst: 5 },
  limitsDoc: 'https://api.mangadex.org/docs/2-limitations/',
  async search(client: ProviderClient, query) {
    return mangaDexCandidates(await client.json('/manga', mangaDexSearch(query.title)));
  },
  async get(client: ProviderClient, id) {
    return mangaDexCandidate(
      await client.json(`/manga/${encodeURIComponent(id)}`, { query: { 'includes[]': ['cover_art', 'author', 'artist'] } }),
    );
  },
  idFrom(input) {
    const text = input.trim();
    if (/^https?:\/\/(www\.)?mangadex\.org\/title\//i.test(text) || /^[0-9a-f-]{36}$/i.test(text)) return UUID.exec(text)?.[0] ?? null;
    return null;
  },
  async test(client) {
    MangaDexList.parse(await client.json('/manga', { query: { title: 'a', limit: '1' } }));
  },
};
