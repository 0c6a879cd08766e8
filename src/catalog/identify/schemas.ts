import { z } from 'zod';

const MediaType = z.enum(['manga', 'comics', 'books']).meta({ id: 'MetadataMediaType' });

export const ProviderView = z
  .object({
    name: z.string().describe("`anilist`, `mangadex`, `mangaupdates`, `openlibrary`, `comicvine`, `metron`, or an HTTP provider's name."),
    label: z.string(),
    kind: z.enum(['builtin', 'http']),
    enabled: z.boolean().describe('Nothing is sent to a provider until an administrator turns it on.'),
    priority: z.number().int().describe('Lower first: the order providers are asked and listed in.'),
    media_types: z.array(MediaType),
    needs_key: z.boolean(),
    key_set: z.boolean().describe('Whether a key is stored; the key itself is never returned.'),
    key_hint: z.string().nullable().describe('Where to get the key.'),
    base_url: z.string().describe('Built-in providers: the configuration key `metadata.providers.<name>.base_url`.'),
    header_name: z.string().nullable().describe('HTTP providers: the header the key is sent in (none: no key is sent).'),
    rate: z.object({ requests_per_second: z.number(), burst: z.number().int() }),
    quota: z
      .object({ requests: z.number().int(), window_hours: z.number().int(), used: z.number().int() })
      .nullable()
      .describe("ComicVine's hourly and Metron's daily allowance, and what this window used."),
    paused_until: z.string().nullable().describe('Sends nothing before then (quota used up, or the provider asked to wait).'),
    last_problem: z.string().nullable().describe("The last call's failure, in words; null after a success."),
    limits_doc: z.string().describe('Where the provider documents its limits.'),
  })
  .meta({ id: 'MetadataProvider' });

export const ProviderUpdate = z
  .strictObject({
    enabled: z.boolean().optional(),
    priority: z.number().int().min(0).max(10_000).optional(),
    media_types: z.array(MediaType).max(3).optional(),
    key: z.string().max(500).nullable().optional().describe('A key or token, stored encrypted; null or empty removes it.'),
    base_url: z
      .string()
      .max(2000)
      .optional()
      .describe('HTTP providers only: the address answering the HTTP provider contract. Naming an unknown provider with it adds one.'),
    header_name: z
      .string()
      .max(100)
      .regex(/^[A-Za-z0-9-]+$/)
      .nullable()
      .optional(),
  })
  .meta({ id: 'MetadataProviderUpdate' });

export const ProviderName = z.object({ name: z.string().min(1).max(40) });

export const ConnectionTest = z.object({ ok: z.boolean(), message: z.string() }).meta({ id: 'MetadataConnectionTest' });

const Why = z
  .object({
    title: z.number().describe('Similarity of the best of its titles, 0–1.'),
    matched_title: z.string(),
    year: z.number().nullable(),
    publisher: z.number().nullable(),
    count: z.number().nullable(),
    language: z.number().nullable(),
  })
  .describe('The parts of the score (docs/decisions/044).');

const Author = z.object({ name: z.string(), role: z.enum(['writer', 'penciller', 'author', 'illustrator', 'other']) });

export const FetchedFields = z
  .object({
    title: z.string().optional(),
    alternate_titles: z.array(z.object({ label: z.string(), title: z.string() })).optional(),
    summary: z.string().optional(),
    publisher: z.string().optional(),
    status: z.enum(['ongoing', 'ended', 'abandoned', 'hiatus']).optional(),
    year: z.number().int().optional(),
    genres: z.array(z.string()).optional(),
    tags: z.array(z.string()).optional(),
    age_rating: z.string().optional(),
    language: z.string().optional(),
    reading_direction: z.enum(['ltr', 'rtl', 'vertical', 'webtoon']).optional(),
    authors: z.array(Author).optional(),
    links: z.array(z.object({ label: z.string(), url: z.string() })).optional(),
    total_book_count: z.number().int().optional(),
  })
  .meta({ id: 'FetchedMetadata', description: "What the provider says, in the series fields' names; absent: it says nothing." });

export const Candidate = z
  .object({
    provider: z.string(),
    provider_label: z.string(),
    external_id: z.string(),
    title: z.string(),
    year: z.number().int().nullable(),
    publisher: z.string().nullable(),
    score: z.number().describe('0–1 (docs/decisions/044).'),
    why: Why,
    url: z.string().nullable().describe("The entry's page at the provider."),
    cover_url: z.string().nullable().describe("The provider's address of the cover (the server fetches it; see cover_path)."),
    cover_path: z.string().nullable().describe('The cover through this server (`GET /metadata/cover`).'),
    fields: FetchedFields,
  })
  .meta({ id: 'MetadataCandidate' });

const Problem = z
  .object({ provider: z.string(), kind: z.string(), message: z.string(), retry_at: z.string().nullable() })
  .meta({ id: 'MetadataProviderProblem' });

export const IdentifyRequest = z
  .strictObject({
    query: z
      .string()
      .max(500)
      .optional()
      .describe(
        "A title to search for instead of the series' own, or a provider's address or id (`https://anilist.co/manga/30013`, `mangadex:…`).",
      ),
  })
  .meta({ id: 'IdentifyRequest' });

export const IdentifyAnswer = z
  .object({
    query: z.object({ title: z.string(), year: z.number().int().nullable(), media_types: z.array(MediaType) }),
    candidates: z.array(Candidate).describe('Best first, at most 20.'),
    problems: z.array(Problem).describe("Providers that could not answer, in words; the others' candidates are still listed."),
  })
  .meta({ id: 'IdentifyAnswer' });

export const ApplyRequest = z
  .strictObject({
    provider: z.string().min(1).max(40),
    external_id: z.string().min(1).max(200),
    fields: z.array(z.string().max(40)).max(20).optional().describe('Only these fields (default: every field the entry fills).'),
  })
  .meta({ id: 'IdentifyApply' });

export const ApplyResult = z
  .object({
    group_id: z.string().describe('The history group: `POST /metadata/history/{group}/undo` reverses all of it.'),
    entry_id: z.string().nullable(),
    applied: z.array(z.string()),
    kept: z.array(z.string()).describe('Fields a person locked: left as they are.'),
    books: z
      .number()
      .int()
      .describe("Books whose title, release date, summary or ISBN came from the provider's issues or volumes, matched by number."),
    external_id: z.string().nullable(),
  })
  .meta({ id: 'IdentifyApplyResult' });

export const CoverRequest = z.strictObject({ provider: z.string().min(1).max(40), external_id: z.string().min(1).max(200) });

export const CoverQuery = z.object({ provider: z.string().min(1).max(40), src: z.string().min(1).max(2000) });

export const LibraryIdentifyRequest = z
  .strictObject({
    which: z
      .enum(['unmatched', 'all', 'matched'])
      .default('unmatched')
      .describe('`unmatched` (default): series with no external id yet; `all`; `matched`: refresh from the entry each matched.'),
  })
  .meta({ id: 'LibraryIdentifyRequest' });

const ReviewStatus = z.enum(['pending', 'no_match', 'accepted', 'rejected']);

export const ReviewQuery = z.object({
  status: ReviewStatus.default('pending'),
  library_id: z.uuid().optional(),
});

export const Review = z
  .object({
    id: z.string(),
    series_id: z.string(),
    series_title: z.string(),
    library_id: z.string(),
    status: ReviewStatus,
    query: z.string(),
    best_score: z.number(),
    candidates: z.array(Candidate),
    created_at: z.string(),
    decided_at: z.string().nullable(),
  })
  .meta({ id: 'MetadataReview' });

export const ReviewCounts = z.object({
  pending: z.number().int(),
  no_match: z.number().int(),
  accepted: z.number().int(),
  rejected: z.number().int(),
});

export const AcceptRequest = z
  .strictObject({ provider: z.string().min(1).max(40).optional(), external_id: z.string().min(1).max(200).optional() })
  .refine((b) => (b.provider === undefined) === (b.external_id === undefined), 'provider and external_id go together')
  .meta({ id: 'ReviewAccept' });
