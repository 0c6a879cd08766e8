import { z } from 'zod';
import { ErrorBody } from '../../http/errors.js';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../http/pagination.js';
import { IdParams } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { TaskView, taskView } from '../../operations/index.js';
import type { ProvidersService } from './providers-service.js';
import {
  AcceptRequest,
  ApplyRequest,
  ApplyResult,
  ConnectionTest,
  CoverQuery,
  CoverRequest,
  IdentifyAnswer,
  IdentifyRequest,
  LibraryIdentifyRequest,
  ProviderName,
  ProviderUpdate,
  ProviderView,
  Review,
  ReviewCounts,
  ReviewQuery,
} from './schemas.js';
import type { IdentifyService } from './service.js';

const errors = { 400: ErrorBody, 404: ErrorBody };
const upstream = { ...errors, 502: ErrorBody };
const tags = ['metadata'];

const CONTRACT =
  'An HTTP provider is any service answering two JSON requests: `GET {base_url}/search?title=&year=&isbn=&author=&media_type=` ' +
  'with `HttpProviderSearchAnswer` (`{results: [HttpProviderEntry]}`, at most 50), and `GET {base_url}/series/{id}` with one ' +
  '`HttpProviderEntry`; a key, when set, is sent in `header_name`. Both schemas are listed under components (docs/metadata-sources.md).';

const FAILED =
  'A provider that cannot answer (down, too slow, out of quota, refusing the key) gives 502 with what went wrong in words (`details.kind`, `details.retry_at`).';

/** Metadata sources (plugins-manage), identifying a series or a library, and the review queue (series-write). */
export function registerIdentifyRoutes(app: App, identify: IdentifyService, providers: ProvidersService): void {
  const manage = { permission: 'plugins-manage' };
  const write = { permission: 'series-write' };

  app.route({
    method: 'GET',
    url: '/metadata/providers',
    config: manage,
    schema: {
      summary: 'List the metadata sources',
      description:
        'Every built-in provider (off until turned on) and every HTTP provider, by priority. Keys are never returned: `key_set` says whether one is stored.',
      tags,
      response: { 200: z.object({ data: z.array(ProviderView) }) },
    },
    handler: async () => ({ data: await providers.list() }),
  });

  app.route({
    method: 'PUT',
    url: '/metadata/providers/:name',
    config: manage,
    schema: {
      summary: 'Configure a metadata source',
      description: `Turns a provider on or off, orders it, chooses the media types it is asked about, stores its key (encrypted; \`null\` removes it). An unknown name with \`base_url\` adds an HTTP provider. ${CONTRACT}`,
      tags,
      params: ProviderName,
      body: ProviderUpdate,
      response: { 200: ProviderView, ...errors },
    },
    handler: (req) => providers.configure(req.params.name, req.body),
  });

  app.route({
    method: 'DELETE',
    url: '/metadata/providers/:name',
    config: manage,
    schema: {
      summary: 'Remove an HTTP metadata source',
      description: 'Built-in providers cannot be removed (400): turn them off.',
      tags,
      params: ProviderName,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      await providers.remove(req.params.name);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/metadata/providers/:name/test',
    config: manage,
    schema: {
      summary: 'Test the connection to a metadata source',
      description:
        'One uncached request with the stored key; `ok` false with the reason in words (no key, refused, unreachable, too slow…). Works on a provider turned off.',
      tags,
      params: ProviderName,
      response: { 200: ConnectionTest, ...errors },
    },
    handler: (req) => providers.test(req.params.name),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/identify',
    config: write,
    schema: {
      summary: 'Find the online entries matching a series',
      description: `Asks every enabled provider serving the series' media type (the library's \`media_type\`, or its books' formats and language), by the series' title (a folder name cleaned of groups, "(Digital)", volume ranges and years) or by \`query\`; a pasted provider address or id asks that provider for that entry. Only titles, years, ISBNs and the first author are sent. Candidates are scored 0–1 (docs/decisions/044). ${FAILED} Answers already fetched are reused for \`metadata.cache_ttl_hours\`.`,
      tags,
      params: IdParams,
      body: IdentifyRequest,
      response: { 200: IdentifyAnswer, ...upstream },
    },
    handler: (req) => identify.candidates(callerOf(req), req.params.id, req.body ?? {}),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/identify/apply',
    config: write,
    schema: {
      summary: "Apply an online entry to a series' metadata",
      description: `Writes the entry's fields (or only \`fields\`) onto the fields no person locked, as one history group that Undo reverses; each field records its source (\`field_sources\`), and the series gets the entry in \`external_ids\` (with the ids it links to) and \`external_id\`, which groups the same work across libraries in series duplicates. Manga get right-to-left reading. ${FAILED}`,
      tags,
      params: IdParams,
      body: ApplyRequest,
      response: { 200: ApplyResult, ...upstream },
    },
    handler: (req) => identify.apply(callerOf(req), req.params.id, req.body),
  });

  app.route({
    method: 'POST',
    url: '/series/:id/identify/cover',
    config: write,
    schema: {
      summary: "Use an online entry's cover as the series' cover",
      description: `The server fetches the cover from the provider's image host (never linked from a page) and makes it the series' chosen cover, recorded in history like an upload. ${FAILED}`,
      tags,
      params: IdParams,
      body: CoverRequest,
      response: { 204: z.null(), ...upstream },
    },
    handler: async (req, reply) => {
      await identify.useCover(callerOf(req), req.params.id, req.body);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'GET',
    url: '/metadata/cover',
    config: write,
    schema: {
      summary: "A candidate's cover, through the server",
      description: `Fetched from the named provider's own image hosts only (any other address: 400), at most 10 MB. ${FAILED}`,
      tags,
      querystring: CoverQuery,
      response: { 200: z.unknown(), ...upstream },
    },
    handler: async (req, reply) => {
      const image = await identify.cover(req.query.provider, req.query.src);
      return reply.type(image.mediaType).header('cache-control', 'private, max-age=86400').send(image.data);
    },
  });

  app.route({
    method: 'POST',
    url: '/libraries/:id/identify',
    config: write,
    schema: {
      summary: "Identify a library's series",
      description:
        'Queues an `identify_library` task (202 with it; while one for the library is queued or running, that one). Each series is applied when sure (score at or above `metadata_auto_threshold` and the runner-up 0.1 lower), sent to the review queue when plausible (0.7 or more), or kept as no match with its best candidates. Progress on `/tasks/stream`; cancellable; a provider that is down is skipped for the rest of the task and reported in its result.',
      tags,
      params: IdParams,
      body: LibraryIdentifyRequest.optional(),
      response: { 202: TaskView, ...errors },
    },
    handler: async (req, reply) =>
      reply.code(202).send(taskView(await identify.requestLibrary(callerOf(req), req.params.id, req.body?.which ?? 'unmatched'))),
  });

  app.route({
    method: 'GET',
    url: '/metadata/review',
    config: write,
    schema: {
      summary: 'The series waiting for a person to choose their entry',
      description:
        '`pending` (default): plausible matches not applied; `no_match`: nothing scored 0.7, the best candidates kept; `accepted`, `rejected`: decided. Only series the caller sees; `counts` per status over the same.',
      tags,
      querystring: PaginationQuery.extend(ReviewQuery.shape),
      response: { 200: paginated(Review).extend({ counts: ReviewCounts }), ...errors },
    },
    handler: async (req) => {
      const page = pageRequest(req.query);
      const found = await identify.reviews(
        callerOf(req),
        { status: req.query.status, library_id: req.query.library_id },
        { offset: page.offset, limit: page.pageSize },
      );
      return { ...toPage(req.url, page, found.total, found.data), counts: found.counts };
    },
  });

  app.route({
    method: 'POST',
    url: '/metadata/review/:id/accept',
    config: write,
    schema: {
      summary: 'Accept a match',
      description: `Applies the best candidate (or the one named) as \`/series/{id}/identify/apply\` does, and marks the review accepted. 409 when already decided. ${FAILED}`,
      tags,
      params: IdParams,
      body: AcceptRequest.optional(),
      response: { 200: ApplyResult.extend({ review: Review.omit({ series_title: true }) }), ...upstream, 409: ErrorBody },
    },
    handler: (req) => identify.accept(callerOf(req), req.params.id, req.body ?? {}),
  });

  app.route({
    method: 'POST',
    url: '/metadata/review/:id/reject',
    config: write,
    schema: {
      summary: 'Reject a match',
      description:
        'Nothing is applied; tasks no longer ask about the series (identifying it by hand still works). 409 when already rejected.',
      tags,
      params: IdParams,
      response: { 200: Review.omit({ series_title: true }), ...errors, 409: ErrorBody },
    },
    handler: (req) => identify.reject(callerOf(req), req.params.id),
  });
}
