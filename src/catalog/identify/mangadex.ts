import { z } from 'zod';
import type { MatchCandidate } from './score.js';

/**
 * MangaDex's answers as identify reads them (api.mangadex.org: `GET /manga?title=…`): the fields that matter for
 * matching, checked with zod and loose elsewhere, since MangaDex adds fields.
 */
const LocalizedString = z.record(z.string(), z.string());

const Manga = z.looseObject({
  id: z.string(),
  type: z.literal('manga'),
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
}

/** The candidates of a `/manga` list answer, in MangaDex's order; an answer of another shape is refused (ZodError). */
export function mangaDexCandidates(body: unknown): MangaDexCandidate[] {
  return MangaDexList.parse(body).data.map((manga) => {
    const a = manga.attributes;
    const main = a.title.en ?? Object.values(a.title)[0] ?? '';
    const titles = [...new Set([...Object.values(a.title), ...a.altTitles.flatMap((t) => Object.values(t))])];
    const lastVolume = Number.parseInt(a.lastVolume ?? '', 10);
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
    };
  });
}
