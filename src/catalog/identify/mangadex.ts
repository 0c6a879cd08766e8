import { z } from 'zod';
import type { MatchCandidate } from './score.js';

/**
 * MangaDex's answers as identify reads them (api.mangadex.org: `GET /manga?title=…`): the fields that matter for
 * matching, checked with zod and loose elsewhere, since MangaDex adds fields.
 */
const LocalizedString = z.record(z.string(), z.string());

const Relationship = z.looseObject({
  id: z.string(),
  type: z.string(),
  attributes: z.looseObject({ name: z.string().optional(), fileName: z.string().optional() }).nullable().optional(),
});

const Manga = z.looseObject({
  id: z.string(),
  type: z.literal('manga'),
  relationships: z.array(Relationship).default([]),
  attributes: z.looseObject({
    title: LocalizedString,
    altTitles: z.array(LocalizedString).default([]),
    originalLanguage: z.string().nullable().optional(),
    year: z.number().int().nullable().optional(),
    lastVolume: z.string().nullable().optional(),
    contentRating: z.enum(['safe', 'suggestive', 'erotica', 'pornographic']).nullable().optional(),
    status: z.string().nullable().optional(),
    links: z.record(z.string(), z.string()).nullable().optional(),
  }),
});

export const MangaDexList = z.looseObject({
  result: z.literal('ok'),
  data: z.array(Manga),
  total: z.number().int(),
});

/** One MangaDex entry as a candidate: its id, its page, the facts scored, and what it says of the audience. */
export interface MangaDexCandidate {
  external_id: string;
  url: string;
  title: string;
  candidate: MatchCandidate;
  content_rating: 'safe' | 'suggestive' | 'erotica' | 'pornographic' | null;
  /** Other databases' ids MangaDex links to (`al` AniList, `mu` MangaUpdates, `mal` MyAnimeList). */
  links: Record<string, string>;
  /** The cover's address, for the server to fetch (never linked to from a page: MangaDex asks not to be hot-linked). */
  cover_url: string | null;
  authors: Array<{ name: string; role: 'writer' | 'penciller' }>;
}

export const MangaDexEntry = z.looseObject({ result: z.literal('ok'), data: Manga });

/** The request of a search by title, with the relationships a candidate shows (cover, authors). */
export const mangaDexSearch = (title: string) => ({
  query: { title, limit: '10', 'includes[]': ['cover_art', 'author', 'artist'], 'order[relevance]': 'desc' },
});

/** The candidates of a `/manga` list answer, in MangaDex's order; an answer of another shape is refused (ZodError). */
export function mangaDexCandidates(body: unknown): MangaDexCandidate[] {
  return MangaDexList.parse(body).data.map(candidateOf);
}

/** The candidate of a `/manga/{id}` answer (a provider URL or id pasted by a person). */
export function mangaDexCandidate(body: unknown): MangaDexCandidate {
  return candidateOf(MangaDexEntry.parse(body).data);
}

function candidateOf(manga: z.infer<typeof Manga>): MangaDexCandidate {
  const a = manga.attributes;
  const main = a.title.en ?? Object.values(a.title)[0] ?? '';
  const titles = [...new Set([...Object.values(a.title), ...a.altTitles.flatMap((t) => Object.values(t))])];
  const lastVolume = Number.parseInt(a.lastVolume ?? '', 10);
  const cover = manga.relationships.find((r) => r.type === 'cover_art');
  return {
    external_id: manga.id,
    url: `https://mangadex.org/title/${manga.id}`,
    title: main,
    candidate: {
      titles: [main, ...titles.filter((t) => t !== main)],
      year: a.year ?? null,
      count: Number.isFinite(lastVolume) && lastVolume > 0 ? lastVolume : null,
      language: a.originalLanguage ?? null,
    },
    content_rating: a.contentRating ?? null,
    links: a.links ?? {},
    cover_url: cover?.attributes?.fileName ? `https://uploads.mangadex.org/covers/${manga.id}/${cover.attributes.fileName}` : null,
    authors: manga.relationships.flatMap((r) =>
      (r.type === 'author' || r.type === 'artist') && r.attributes?.name
        ? [{ name: r.attributes.name, role: r.type === 'author' ? ('writer' as const) : ('penciller' as const) }]
        : [],
    ),
  };
}
