import { z } from 'zod';
import type { ProviderClient } from '../client.js';
import { definedFields, type MetadataProvider, type ProviderEntry } from './provider.js';
import { plainText } from './text.js';

/**
 * Open Library (openlibrary.org): books, by ISBN first (`/search.json?isbn=`), then by title and author
 * (`/search.json?title=&author=`); a work by id from `/works/{id}.json` with its authors' names. Older answers
 * name a work `OL27448W`, newer ones `/works/OL27448W`: both are read.
 */
const Doc = z.looseObject({
  key: z.string(),
  title: z.string(),
  author_name: z.array(z.string()).optional(),
  first_publish_year: z.number().int().nullable().optional(),
  isbn: z.array(z.string()).optional(),
  publisher: z.array(z.string()).optional(),
  language: z.array(z.string()).optional(),
  subject: z.array(z.string()).optional(),
  cover_i: z.number().int().nullable().optional(),
});
const SearchAnswer = z.looseObject({ docs: z.array(Doc) });

const Work = z.looseObject({
  key: z.string(),
  title: z.string(),
  description: z
    .union([z.string(), z.looseObject({ value: z.string() })])
    .nullable()
    .optional(),
  subjects: z.array(z.string()).optional(),
  covers: z.array(z.number().int()).optional(),
  first_publish_date: z.string().nullable().optional(),
  authors: z.array(z.looseObject({ author: z.looseObject({ key: z.string() }) })).optional(),
});
const Author = z.looseObject({ name: z.string() });

/** MARC language codes Open Library uses, as BCP 47 (the common ones; others are left unset). */
const LANGUAGES: Record<string, string> = {
  eng: 'en',
  fre: 'fr',
  ger: 'de',
  spa: 'es',
  ita: 'it',
  por: 'pt',
  dut: 'nl',
  pol: 'pl',
  jpn: 'ja',
  chi: 'zh',
  kor: 'ko',
  ara: 'ar',
  rus: 'ru',
  swe: 'sv',
};

const workId = (key: string) => key.replace(/^\/works\//, '');
const workUrl = (id: string) => `https://openlibrary.org/works/${id}`;
const coverUrl = (id: number | null | undefined) => (id && id > 0 ? `https://covers.openlibrary.org/b/id/${id}-L.jpg` : null);

function docEntry(doc: z.infer<typeof Doc>): ProviderEntry {
  const id = workId(doc.key);
  const url = workUrl(id);
  const language = doc.language?.length === 1 ? LANGUAGES[doc.language[0]!] : undefined;
  return {
    provider: 'openlibrary',
    external_id: id,
    url,
    title: doc.title,
    candidate: {
      titles: [doc.title],
      year: doc.first_publish_year ?? null,
      publisher: doc.publisher?.[0] ?? null,
      language: language ?? null,
      isbns: doc.isbn ?? [],
    },
    fields: definedFields({
      title: doc.title,
      year: doc.first_publish_year ?? undefined,
      publisher: doc.publisher?.[0],
      language,
      tags: (doc.subject ?? []).slice(0, 20),
      authors: (doc.author_name ?? []).map((name) => ({ name, role: 'author' as const })),
      links: [{ label: 'Open Library', url }],
    }),
    cover_url: coverUrl(doc.cover_i),
    linked_ids: [],
  };
}

export function openLibraryCandidates(body: unknown): ProviderEntry[] {
  return SearchAnswer.parse(body).docs.map(docEntry);
}

/** A work record and its authors' records as an entry. */
export function openLibraryWork(body: unknown, authors: readonly unknown[]): ProviderEntry {
  const work = Work.parse(body);
  const id = workId(work.key);
  const url = workUrl(id);
  const year = Number(/\d{4}/.exec(work.first_publish_date ?? '')?.[0]) || null;
  const description = typeof work.description === 'string' ? work.description : work.description?.value;
  return {
    provider: 'openlibrary',
    external_id: id,
    url,
    title: work.title,
    candidate: { titles: [work.title], year },
    fields: definedFields({
      title: work.title,
      summary: plainText(description),
      year: year ?? undefined,
      tags: (work.subjects ?? []).slice(0, 20),
      authors: authors.map((a) => ({ name: Author.parse(a).name, role: 'author' as const })),
      links: [{ label: 'Open Library', url }],
    }),
    cover_url: coverUrl(work.covers?.[0]),
    linked_ids: [],
  };
}

export const openlibrary: MetadataProvider = {
  name: 'openlibrary',
  label: 'Open Library',
  mediaTypes: ['books'],
  key: 'none',
  // "please limit to 1 request per second" without an identifying User-Agent, 3 with one (openlibrary.org/developers/api).
  limits: { rate: 1, burst: 3 },
  limitsDoc: 'https://openlibrary.org/developers/api',
  async search(client: ProviderClient, query) {
    const isbn = query.isbn?.replace(/[^0-9Xx]/g, '');
    if (isbn) {
      const found = openLibraryCandidates(await client.json('/search.json', { query: { isbn, limit: '5' } }));
      if (found.length > 0) return found;
    }
    const q: Record<string, string> = { title: query.title, limit: '10' };
    if (query.author) q.author = query.author;
    return openLibraryCandidates(await client.json('/search.json', { query: q }));
  },
  async get(client: ProviderClient, id) {
    const work = await client.json(`/works/${encodeURIComponent(id)}.json`);
    const keys =
      Work.parse(work)
        .authors?.slice(0, 4)
        .map((a) => a.author.key) ?? [];
    const authors = await Promise.all(keys.map((key) => client.json(`${key}.json`)));
    return openLibraryWork(work, authors);
  },
  idFrom(input) {
    const m = /(?:^|openlibrary\.org\/works\/)(OL\d+W)\b/i.exec(input.trim());
    return m ? m[1]!.toUpperCase() : null;
  },
  async test(client) {
    SearchAnswer.parse(await client.json('/search.json', { query: { title: 'a', limit: '1' } }));
  },
};
