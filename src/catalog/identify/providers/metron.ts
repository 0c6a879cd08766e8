import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { definedFields, present, type MetadataProvider, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * Metron (metron.cloud/api): comics. Needs an account: HTTP Basic with `username:password`. `GET /series/?name=…`
 * lists series briefly; `GET /series/{id}/` has the rest.
 */
const Brief = z.looseObject({
  id: z.number().int(),
  series: z.string().optional(),
  name: z.string().optional(),
  year_began: z.number().int().nullable().optional(),
  issue_count: z.number().int().nullable().optional(),
});
const ListAnswer = z.looseObject({ results: z.array(Brief) });
const Series = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  year_began: z.number().int().nullable().optional(),
  year_end: z.number().int().nullable().optional(),
  issue_count: z.number().int().nullable().optional(),
  publisher: z.looseObject({ name: z.string() }).nullable().optional(),
  desc: z.string().nullable().optional(),
  genres: z.array(z.looseObject({ name: z.string() })).optional(),
  associated: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  status: z.string().nullable().optional(),
  resource_url: z.string().nullable().optional(),
  cv_id: z.number().int().nullable().optional(),
});

const seriesUrl = (id: number) => `https://metron.cloud/series/${id}/`;

export function metronCandidates(body: unknown): ProviderEntry[] {
  return ListAnswer.parse(body).results.map((b) => {
    // The list's `series` is the display name ("Batman (2016)"); the year is given apart too.
    const title = present(b.name) ?? present(b.series?.replace(/\s*\(\d{4}\)\s*$/, '')) ?? String(b.id);
    return {
      provider: 'metron',
      external_id: String(b.id),
      url: seriesUrl(b.id),
      title,
      candidate: { titles: [title], year: b.year_began ?? null, count: b.issue_count ?? null },
      fields: definedFields({ title, year: b.year_began ?? undefined, links: [{ label: 'Metron', url: seriesUrl(b.id) }] }),
      cover_url: null,
      linked_ids: [],
    };
  });
}

const STATUS = { Ongoing: 'ongoing', Completed: 'ended', Cancelled: 'abandoned', Hiatus: 'hiatus' } as const;

export function metronSeries(body: unknown): ProviderEntry {
  const s = Series.parse(body);
  const url = present(s.resource_url) ?? seriesUrl(s.id);
  const alternates = (s.associated ?? []).flatMap((a) => (present(a.name) ? [a.name!.trim()] : []));
  return {
    provider: 'metron',
    external_id: String(s.id),
    url,
    title: s.name,
    candidate: {
      titles: [s.name, ...alternates],
      year: s.year_began ?? null,
      publisher: s.publisher?.name ?? null,
      count: s.issue_count ?? null,
    },
    fields: definedFields({
      title: s.name,
      alternate_titles: alternates.map((title) => ({ label: '', title })),
      summary: plainText(s.desc),
      publisher: present(s.publisher?.name),
      status: s.status ? STATUS[s.status as keyof typeof STATUS] : undefined,
      year: s.year_began ?? undefined,
      genres: (s.genres ?? []).map((g) => g.name),
      links: [{ label: 'Metron', url }],
      total_book_count: s.year_end ? (s.issue_count ?? undefined) : undefined,
    }),
    cover_url: null,
    linked_ids: s.cv_id ? [{ provider: 'comicvine', id: String(s.cv_id), url: null }] : [],
  };
}

export const metron: MetadataProvider = {
  name: 'metron',
  label: 'Metron',
  mediaTypes: ['comics'],
  key: 'required',
  keyHint: 'username:password of a metron.cloud account',
  // "30 requests per minute and 10,000 requests per day" (metron.cloud/pages/faq/).
  limits: { rate: 0.5, burst: 5 },
  quota: { requests: 10_000, windowHours: 24 },
  limitsDoc: 'https://metron.cloud/pages/faq/',
  credentials: (key) => ({ headers: { authorization: `Basic ${Buffer.from(key).toString('base64')}` } }),
  async search(client: ProviderClient, query) {
    const q: Record<string, string> = { name: query.title };
    if (query.year) q.year_began = String(query.year);
    return metronCandidates(await client.json('/series/', { query: q }));
  },
  async get(client: ProviderClient, id) {
    return metronSeries(await client.json(`/series/${encodeURIComponent(id)}/`));
  },
  idFrom(input) {
    return (
      /^https?:\/\/(?:www\.)?metron\.cloud\/series\/(\d+)/i.exec(input.trim())?.[1] ?? /^metron:(\d+)$/i.exec(input.trim())?.[1] ?? null
    );
  },
  async test(client) {
    ListAnswer.parse(await client.json('/series/', { query: { name: 'a' } }));
  },
};
