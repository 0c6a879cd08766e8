import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { definedFields, originOf, present, type FetchedFields, type MetadataProvider, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * AniList (graphql.anilist.co): one GraphQL endpoint, POSTed. Identification asks for manga only, by search or by id.
 * The answers are checked with zod on the fields read; fields AniList leaves out of an answer are optional.
 */
const Media = z.looseObject({
  id: z.number().int(),
  idMal: z.number().int().nullable().optional(),
  type: z.string().nullable().optional(),
  format: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  startDate: z.looseObject({ year: z.number().int().nullable().optional() }).nullable().optional(),
  volumes: z.number().int().nullable().optional(),
  chapters: z.number().int().nullable().optional(),
  countryOfOrigin: z.string().nullable().optional(),
  isAdult: z.boolean().nullable().optional(),
  genres: z.array(z.string()).nullable().optional(),
  synonyms: z.array(z.string()).nullable().optional(),
  siteUrl: z.string().nullable().optional(),
  title: z.looseObject({
    romaji: z.string().nullable().optional(),
    english: z.string().nullable().optional(),
    native: z.string().nullable().optional(),
  }),
  tags: z
    .array(z.looseObject({ name: z.string(), rank: z.number().nullable().optional(), isMediaSpoiler: z.boolean().nullable().optional() }))
    .nullable()
    .optional(),
  coverImage: z
    .looseObject({ extraLarge: z.string().nullable().optional(), large: z.string().nullable().optional() })
    .nullable()
    .optional(),
  staff: z
    .looseObject({
      edges: z.array(
        z.looseObject({
          role: z.string().nullable().optional(),
          node: z.looseObject({ name: z.looseObject({ full: z.string().nullable().optional() }) }),
        }),
      ),
    })
    .nullable()
    .optional(),
});

const PageAnswer = z.looseObject({ data: z.looseObject({ Page: z.looseObject({ media: z.array(Media) }) }) });
const MediaAnswer = z.looseObject({ data: z.looseObject({ Media: Media }) });

const FIELDS = `id idMal type format status description(asHtml: false) startDate { year } volumes chapters countryOfOrigin isAdult
  genres synonyms siteUrl title { romaji english native } tags { name rank isMediaSpoiler } coverImage { extraLarge large }
  staff(perPage: 8) { edges { role node { name { full } } } }`;
export const ANILIST_SEARCH = `query ($search: String) { Page(perPage: 10) { media(search: $search, type: MANGA) { ${FIELDS} } } }`;
export const ANILIST_BY_ID = `query ($id: Int) { Media(id: $id, type: MANGA) { ${FIELDS} } }`;

const STATUS: Record<string, FetchedFields['status']> = {
  FINISHED: 'ended',
  RELEASING: 'ongoing',
  HIATUS: 'hiatus',
  CANCELLED: 'abandoned',
};

/** A staff role ("Story & Art", "Story", "Art", "Original Creator") as author roles. */
function rolesOf(role: string): ('writer' | 'penciller')[] {
  const r = role.toLowerCase();
  const out: ('writer' | 'penciller')[] = [];
  if (/story|original creator|script/.test(r)) out.push('writer');
  if (/art/.test(r)) out.push('penciller');
  return out;
}

function entryOf(media: z.infer<typeof Media>): ProviderEntry {
  const t = media.title;
  const main = present(t.english) ?? present(t.romaji) ?? present(t.native) ?? String(media.id);
  const named = [
    ['Romaji', t.romaji],
    ['English', t.english],
    ['Native', t.native],
  ] as const;
  const alternates = [
    ...named.flatMap(([label, title]) => (present(title) && title !== main ? [{ label, title: title!.trim() }] : [])),
    ...(media.synonyms ?? []).flatMap((s) => (present(s) ? [{ label: '', title: s.trim() }] : [])),
  ];
  const url = present(media.siteUrl) ?? `https://anilist.co/manga/${media.id}`;
  const authors = (media.staff?.edges ?? []).flatMap((e) =>
    e.node.name.full ? rolesOf(e.role ?? '').map((role) => ({ name: e.node.name.full!, role })) : [],
  );
  return {
    provider: 'anilist',
    external_id: String(media.id),
    url,
    title: main,
    candidate: {
      titles: [main, ...alternates.map((a) => a.title)],
      year: media.startDate?.year ?? null,
      count: media.volumes ?? null,
      language: originOf(media.countryOfOrigin).language ?? null,
    },
    fields: definedFields({
      title: main,
      alternate_titles: alternates.slice(0, 100),
      summary: plainText(media.description),
      status: media.status ? STATUS[media.status] : undefined,
      year: media.startDate?.year ?? undefined,
      genres: media.genres ?? undefined,
      tags: (media.tags ?? []).filter((tag) => !tag.isMediaSpoiler && (tag.rank ?? 0) >= 60).map((tag) => tag.name),
      // AniList marks adult works only; anything else is left unrated rather than guessed.
      age_rating: media.isAdult ? 'Adults Only 18+' : undefined,
      ...originOf(media.countryOfOrigin),
      authors,
      links: [{ label: 'AniList', url }],
      total_book_count: media.status === 'FINISHED' ? (media.volumes ?? undefined) : undefined,
    }),
    cover_url: present(media.coverImage?.extraLarge) ?? present(media.coverImage?.large) ?? null,
    linked_ids: media.idMal
      ? [{ provider: 'myanimelist', id: String(media.idMal), url: `https://myanimelist.net/manga/${media.idMal}` }]
      : [],
  };
}

/** The manga of a `Page { media }` answer (an anime an answer holds is not a candidate). */
export function aniListCandidates(body: unknown): ProviderEntry[] {
  return PageAnswer.parse(body)
    .data.Page.media.filter((m) => !m.type || m.type === 'MANGA')
    .map(entryOf);
}

export function aniListCandidate(body: unknown): ProviderEntry {
  return entryOf(MediaAnswer.parse(body).data.Media);
}

export const anilist: MetadataProvider = {
  name: 'anilist',
  label: 'AniList',
  mediaTypes: ['manga'],
  key: 'none',
  // "90 requests per minute" (docs.anilist.co/guide/rate-limiting), currently degraded to 30.
  limits: { rate: 0.5, burst: 5 },
  limitsDoc: 'https://docs.anilist.co/guide/rate-limiting',
  async search(client: ProviderClient, query) {
    return aniListCandidates(await client.json('/', { body: { query: ANILIST_SEARCH, variables: { search: query.title } } }));
  },
  async get(client: ProviderClient, id) {
    return aniListCandidate(await client.json('/', { body: { query: ANILIST_BY_ID, variables: { id: Number(id) } } }));
  },
  idFrom(input) {
    const text = input.trim();
    const url = /^https?:\/\/(?:www\.)?anilist\.co\/manga\/(\d+)/i.exec(text);
    if (url) return url[1]!;
    return /^anilist:(\d+)$/i.exec(text)?.[1] ?? null;
  },
  async test(client) {
    await client.json('/', { body: { query: 'query { Media(id: 1, type: ANIME) { id } }' } });
  },
};
