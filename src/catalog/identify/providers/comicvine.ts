import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { ProviderError } from '../client.js';
import { definedFields, present, type MetadataProvider, type ProviderBook, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * ComicVine (comicvine.gamespot.com/api): comics, a volume being a series. Needs an API key (a query parameter,
 * never part of a kept answer's key). `GET /search/?resources=volume&query=…` and `GET /volume/4050-{id}/`. A
 * ComicVine error comes as HTTP 200 with `status_code` other than 1: it is read as a refusal.
 */
const Volume = z.looseObject({
  id: z.number().int(),
  name: z.string().nullable(),
  aliases: z.string().nullable().optional(),
  start_year: z.union([z.string(), z.number()]).nullable().optional(),
  publisher: z.looseObject({ name: z.string().nullable().optional() }).nullable().optional(),
  count_of_issues: z.number().int().nullable().optional(),
  deck: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  image: z.looseObject({ original_url: z.string().nullable().optional() }).nullable().optional(),
  site_detail_url: z.string().nullable().optional(),
});
const Envelope = z.looseObject({ status_code: z.number().int(), error: z.string(), results: z.unknown() });

/** The results of an answer, or the error ComicVine said in its envelope. */
function results(body: unknown): unknown {
  const envelope = Envelope.parse(body);
  if (envelope.status_code !== 1) {
    const kind = envelope.status_code === 100 ? 'refused' : envelope.status_code === 107 ? 'rate_limited' : 'refused';
    throw new ProviderError('ComicVine', kind, `answers "${envelope.error}" (status_code ${envelope.status_code})`);
  }
  return envelope.results;
}

function entryOf(volume: z.infer<typeof Volume>): ProviderEntry {
  const title = present(volume.name) ?? String(volume.id);
  const aliases = (volume.aliases ?? '').split(/\r?\n/).flatMap((a) => (present(a) ? [a.trim()] : []));
  const year = Number(volume.start_year) || null;
  const url = present(volume.site_detail_url) ?? `https://comicvine.gamespot.com/volume/4050-${volume.id}/`;
  return {
    provider: 'comicvine',
    external_id: String(volume.id),
    url,
    title,
    candidate: {
      titles: [title, ...aliases],
      year,
      publisher: volume.publisher?.name ?? null,
      count: volume.count_of_issues ?? null,
    },
    fields: definedFields({
      title,
      alternate_titles: aliases.map((a) => ({ label: '', title: a })),
      summary: plainText(volume.description) ?? present(volume.deck),
      publisher: present(volume.publisher?.name),
      year: year ?? undefined,
      links: [{ label: 'ComicVine', url }],
      total_book_count: volume.count_of_issues ?? undefined,
    }),
    cover_url: present(volume.image?.original_url) ?? null,
    linked_ids: [],
  };
}

export function comicVineCandidates(body: unknown): ProviderEntry[] {
  const list = results(body);
  return z
    .array(z.looseObject({ resource_type: z.string().optional() }))
    .parse(list)
    .flatMap((r) => (!r.resource_type || r.resource_type === 'volume' ? [entryOf(Volume.parse(r))] : []));
}

export function comicVineVolume(body: unknown): ProviderEntry {
  return entryOf(Volume.parse(results(body)));
}

const Issue = z.looseObject({
  issue_number: z.union([z.string(), z.number()]).nullable().optional(),
  name: z.string().nullable().optional(),
  cover_date: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
});
const IssuePage = z.looseObject({ number_of_total_results: z.number().int(), offset: z.number().int() });

/** A page of `GET /issues/?filter=volume:{id}` as books (an issue without a number matches no book). */
export function comicVineIssues(body: unknown): ProviderBook[] {
  return z
    .array(Issue)
    .parse(results(body))
    .flatMap((i) => {
      const number = present(i.issue_number === null || i.issue_number === undefined ? undefined : String(i.issue_number));
      if (!number) return [];
      const date = present(i.cover_date);
      return [
        {
          number,
          title: present(i.name),
          release_date: date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined,
          summary: plainText(i.description),
        },
      ];
    });
}

const ISSUE_FIELDS = 'id,issue_number,name,cover_date,description';
/** Issues read for one volume at most: ten pages of 100 (the longest-running volumes have about a thousand). */
const ISSUE_PAGES = 10;

const VOLUME_FIELDS = 'id,name,aliases,start_year,publisher,count_of_issues,deck,description,image,site_detail_url';

export const comicvine: MetadataProvider = {
  name: 'comicvine',
  label: 'ComicVine',
  mediaTypes: ['comics'],
  key: 'required',
  keyHint: 'API key (comicvine.gamespot.com/api)',
  // "200 requests per resource, per hour" and velocity detection: about one a second (comicvine.gamespot.com/api/).
  limits: { rate: 1, burst: 1 },
  quota: { requests: 200, windowHours: 1 },
  limitsDoc: 'https://comicvine.gamespot.com/api/',
  credentials: (key) => ({ query: { api_key: key } }),
  async search(client: ProviderClient, query) {
    return comicVineCandidates(
      await client.json('/search/', {
        query: { format: 'json', resources: 'volume', query: query.title, limit: '10', field_list: `${VOLUME_FIELDS},resource_type` },
      }),
    );
  },
  async get(client: ProviderClient, id) {
    return comicVineVolume(
      await client.json(`/volume/4050-${encodeURIComponent(id)}/`, { query: { format: 'json', field_list: VOLUME_FIELDS } }),
    );
  },
  idFrom(input) {
    return /(?:^|\/)4050-(\d+)\b/.exec(input.trim())?.[1] ?? null;
  },
  async books(client: ProviderClient, id) {
    const books: ProviderBook[] = [];
    for (let page = 0; page < ISSUE_PAGES; page++) {
      const body = await client.json('/issues/', {
        query: {
          format: 'json',
          filter: `volume:${id}`,
          field_list: ISSUE_FIELDS,
          limit: '100',
          offset: String(page * 100),
          sort: 'issue_number:asc',
        },
      });
      books.push(...comicVineIssues(body));
      const { number_of_total_results: total, offset } = IssuePage.parse(body);
      if (offset + 100 >= total) break;
    }
    return books;
  },
  async test(client) {
    results(await client.json('/types/', { query: { format: 'json' } }));
  },
};
