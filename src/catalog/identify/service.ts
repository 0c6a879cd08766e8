import path from 'node:path';
import { newId, nowIso } from '../../db/ids.js';
import { parseJsonColumn } from '../../db/json-column.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import { inScope, scopeFor, type Caller } from '../../identity/index.js';
import type { TaskQueue, TaskRow } from '../../tasks/queue.js';
import { cronError, type Scheduler } from '../../tasks/scheduler.js';
import type { TaskContext } from '../../tasks/worker.js';
import { newGroup, type HistoryGroup } from '../metadata/history-rows.js';
import type { MetadataService } from '../metadata/service.js';
import { ProviderError } from './client.js';
import { folderTitle } from './names.js';
import { problemOf, type ActiveProvider, type ProviderProblem, type ProvidersService } from './providers-service.js';
import { MEDIA_TYPES, type FetchedFields, type MediaType, type ProviderEntry } from './providers/provider.js';
import type { IdentifyRepository, ReviewRow, SeriesFacts } from './repository.js';
import { decide, scoreCandidate, type MatchQuery, type MatchScore, type MatchThresholds } from './score.js';

export const IDENTIFY_TASK = 'identify_library';

/** The fields applying can write, in the API's names (a request's `fields` chooses among them). */
export const APPLICABLE_FIELDS = [
  'title',
  'alternate_titles',
  'summary',
  'publisher',
  'status',
  'year',
  'genres',
  'tags',
  'age_rating',
  'language',
  'reading_direction',
  'authors',
  'links',
  'total_book_count',
  'external_ids',
  /** The books' title, release date, summary and ISBN, from the provider's issues or volumes matched by number. */
  'books',
] as const;
export type ApplicableField = (typeof APPLICABLE_FIELDS)[number];

/** A candidate as the API shows it. */
export interface CandidateView {
  provider: string;
  provider_label: string;
  external_id: string;
  title: string;
  year: number | null;
  publisher: string | null;
  score: number;
  why: MatchScore['why'];
  url: string | null;
  /** The provider's address of the cover: the server fetches it (`cover_path`), pages never link to it. */
  cover_url: string | null;
  /** The cover through the server, for screens. */
  cover_path: string | null;
  fields: FetchedFields;
}

export interface IdentifyAnswer {
  query: { title: string; year: number | null; media_types: MediaType[] };
  candidates: CandidateView[];
  /** Providers that could not answer, each in words: the others' candidates are still here. */
  problems: ProviderProblem[];
}

export type IdentifyOutcome = 'applied' | 'review' | 'no_match' | 'failed';

/** Cover hosts of each built-in provider: a cover is fetched only from these or the provider's own address. */
const COVER_HOSTS: Record<string, readonly string[]> = {
  anilist: ['s4.anilist.co', 's1.anilist.co', 'img.anili.st'],
  mangadex: ['uploads.mangadex.org'],
  mangaupdates: ['cdn.mangaupdates.com', 'www.mangaupdates.com'],
  openlibrary: ['covers.openlibrary.org'],
  comicvine: ['comicvine.gamespot.com'],
  metron: ['static.metron.cloud', 'metron.cloud'],
};

/** Failures that say the provider is down for now: a task stops asking it. */
const DOWN = new Set(['timeout', 'unreachable', 'server_error', 'rate_limited']);

interface Scored {
  entry: ProviderEntry;
  label: string;
  score: MatchScore;
}

export interface IdentifyDeps {
  repo: IdentifyRepository;
  providers: ProvidersService;
  metadata: MetadataService;
  /** The series, if the caller sees it (404 otherwise): identity/access. */
  requireSeries: (caller: Caller, id: string) => Promise<unknown>;
  thresholds: () => MatchThresholds;
  /** Sets a series' chosen cover from an image (covers feature), as a person's choice. */
  setCover: (caller: Caller, seriesId: string, image: Buffer) => Promise<unknown>;
  queue: TaskQueue;
  scheduler: Scheduler;
  /** Responses the server has sent so far (RequestMetrics.total): a task yields while readers are being served. */
  responses?: () => number;
  onError: (err: unknown, what: string) => void;
}

type Which = 'all' | 'unmatched' | 'matched';

const scheduleKey = (libraryId: string) => `identify:${libraryId}`;

const RECENT_MS = 10 * 60_000;
const RECENT_MAX = 200;

/**
 * Identification (decision 045): a series' candidates from every provider serving its media type, scored
 * (decision 044); the best applied, sent to a person, or kept as "no match"; applying as one history group that
 * Undo reverses; a library's series as a task.
 */
export class IdentifyService {
  /**
   * Searches answered a moment ago, read: a library's series often share a title (volumes in separate folders), and
   * reading a cached answer again (its JSON, its schema) cost more than scoring it. Keyed by the provider's settings
   * too, so a change of address or key asks afresh; the database cache below keeps answers for days.
   */
  private readonly recent = new Map<string, { at: number; entries: ProviderEntry[] }>();

  constructor(private readonly deps: IdentifyDeps) {}

  private async search(a: ActiveProvider, query: Parameters<ActiveProvider['provider']['search']>[1]): Promise<ProviderEntry[]> {
    const key = `${a.row.name}|${a.row.updated_at}|${JSON.stringify(query)}`;
    const kept = this.recent.get(key);
    if (kept && Date.now() - kept.at < RECENT_MS) return kept.entries;
    const entries = await a.provider.search(a.client, query);
    if (this.recent.size >= RECENT_MAX) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(key, { at: Date.now(), entries });
    return entries;
  }

  private async facts(id: string): Promise<SeriesFacts> {
    const facts = await this.deps.repo.seriesFacts(id);
    if (!facts) throw notFound('Series');
    return facts;
  }

  /** What the series is searched by, and what it is scored against. */
  private async matchQuery(
    facts: SeriesFacts,
    typed?: string,
  ): Promise<{ query: MatchQuery; mediaTypes: MediaType[]; author: string | null }> {
    const folder = folderTitle(path.posix.basename(facts.path));
    const named = folderTitle(facts.title ?? facts.name);
    const books = await this.deps.repo.bookFacts(facts.id);
    const authors = parseJsonColumn<{ name?: unknown }[]>(books.authors, []);
    return {
      query: {
        title: typed?.trim() || named.title || folder.title,
        year: folder.year ?? named.year ?? facts.year,
        qualifiers: [...new Set([...folder.qualifiers, ...named.qualifiers])],
        publisher: facts.publisher,
        count: Math.max(Number(facts.book_count), folder.volumes ?? 0) || null,
        language: facts.language,
        isbn: books.isbn,
      },
      mediaTypes: mediaTypesOf(facts, books.formats),
      author: typeof authors[0]?.name === 'string' ? authors[0].name : null,
    };
  }

  /** The candidates of every provider for a query (or the entry a pasted address names), scored, best first. */
  private async gather(
    facts: SeriesFacts,
    typed: string | undefined,
    skip: Set<string> = new Set(),
  ): Promise<{ query: MatchQuery; mediaTypes: MediaType[]; scored: Scored[]; problems: ProviderProblem[]; asked: number }> {
    const { query, mediaTypes, author } = await this.matchQuery(facts, typed);
    const problems: ProviderProblem[] = [];
    const pasted = typed ? await this.pasted(typed) : null;
    const active = pasted ? [pasted.active] : (await this.deps.providers.active(mediaTypes)).filter((a) => !skip.has(a.row.name));
    const answers = await Promise.all(
      active.map(async (a) => {
        try {
          const entries = pasted
            ? [await a.provider.get(a.client, pasted.id)]
            : await this.search(a, { title: query.title, year: query.year, isbn: query.isbn, author });
          await this.deps.providers.report(a.row.name, null);
          return entries.map((entry) => ({ entry, label: a.provider.label }));
        } catch (err) {
          problems.push(problemOf(err, a.provider.label));
          await this.deps.providers.report(a.row.name, err);
          if (err instanceof ProviderError && DOWN.has(err.kind)) skip.add(a.row.name);
          return [];
        }
      }),
    );
    const scored: Scored[] = [];
    for (const [i, c] of answers.flat().entries()) {
      // Scoring is work on this thread: a reader's page waiting is answered between candidates.
      if (i > 0 && i % 20 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const score = scoreCandidate(query, c.entry.candidate);
      scored.push({ ...c, score: pasted ? { ...score, score: 1 } : score });
    }
    scored.sort((a, b) => b.score.score - a.score.score);
    return { query, mediaTypes, scored, problems, asked: active.length };
  }

  /**
   * Which works of the online databases a title names (the inbox asks, for a file that matched no series of its
   * library by name): the candidates of every turned-on provider, scored against the title and year, best first.
   * A provider that cannot answer is reported on its settings and left out.
   */
  async lookup(
    title: string,
    year: number | null,
  ): Promise<Array<{ provider: string; external_id: string; title: string; score: number }>> {
    const active = await this.deps.providers.active(MEDIA_TYPES);
    const answers = await Promise.all(
      active.map(async (a) => {
        try {
          const entries = await this.search(a, { title, year, isbn: null, author: null });
          await this.deps.providers.report(a.row.name, null);
          return entries.map((entry) => ({
            provider: a.row.name,
            external_id: entry.external_id,
            title: entry.title,
            score: scoreCandidate({ title, year }, entry.candidate).score,
          }));
        } catch (err) {
          await this.deps.providers.report(a.row.name, err);
          return [];
        }
      }),
    );
    return answers.flat().sort((x, y) => y.score - x.score);
  }

  /** A provider address or id a person pasted, and the provider it names. */
  private async pasted(text: string): Promise<{ active: ActiveProvider; id: string } | null> {
    for (const active of await this.deps.providers.enabled()) {
      const id = active.provider.idFrom(text);
      if (id) return { active, id };
    }
    return null;
  }

  /** `POST /series/{id}/identify`: the candidates, scored, best first. */
  async candidates(caller: Caller, seriesId: string, input: { query?: string }): Promise<IdentifyAnswer> {
    await this.deps.requireSeries(caller, seriesId);
    const facts = await this.facts(seriesId);
    const { query, mediaTypes, scored, problems, asked } = await this.gather(facts, input.query);
    if (asked === 0)
      throw badRequest(
        'No metadata source serving this series is turned on: an administrator turns them on in Administration → Metadata sources',
        {
          media_types: mediaTypes,
        },
      );
    return {
      query: { title: query.title, year: query.year ?? null, media_types: mediaTypes },
      candidates: scored.slice(0, 20).map(candidateView),
      problems,
    };
  }

  /** `POST /series/{id}/identify/apply`: one provider's entry onto the series' unlocked fields. */
  async apply(
    caller: Caller | null,
    seriesId: string,
    input: { provider: string; external_id: string; fields?: readonly string[] },
  ): Promise<{
    group_id: string;
    entry_id: string | null;
    applied: string[];
    kept: string[];
    books: number;
    external_id: string | null;
  }> {
    if (caller) await this.deps.requireSeries(caller, seriesId);
    const facts = await this.facts(seriesId);
    const active = await this.deps.providers.one(input.provider);
    let entry: ProviderEntry;
    try {
      entry = await active.provider.get(active.client, input.external_id);
      await this.deps.providers.report(active.row.name, null);
    } catch (err) {
      await this.deps.providers.report(active.row.name, err);
      if (err instanceof ProviderError && err.status === 404)
        throw notFound(`${active.provider.label} entry`, { external_id: input.external_id });
      throw new ProviderUnavailable(problemOf(err, active.provider.label));
    }
    const wanted = input.fields ? new Set(input.fields) : null;
    if (wanted) {
      const unknown = [...wanted].filter((f) => !(APPLICABLE_FIELDS as readonly string[]).includes(f));
      if (unknown.length)
        throw badRequest(`Not a field identification writes: ${unknown.join(', ')}`, { fields: unknown, known: APPLICABLE_FIELDS });
    }
    const values: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(entry.fields)) if (!wanted || wanted.has(field)) values[field] = value;
    if (!wanted || wanted.has('external_ids')) values.external_ids = mergedIds(facts.external_ids, entry);
    const date = nowIso().slice(0, 10);
    const source = {
      detail: `${active.provider.label} ${entry.external_id}`,
      label: `${active.provider.label} ${entry.external_id}, ${date}`,
    };
    // The series and its books in one history group: Undo gives all of it back.
    const group = newGroup();
    const result = await this.deps.metadata.applyFromProvider(caller, 'series', seriesId, values, source, group);
    const books = !wanted || wanted.has('books') ? await this.applyBooks(caller, seriesId, active, entry.external_id, source, group) : 0;
    const review = await this.deps.repo.reviewOfSeries(seriesId);
    if (review && (review.status === 'pending' || review.status === 'no_match'))
      await this.deps.repo.decideReview(review.id, 'accepted', nowIso(), caller?.user.id ?? null);
    const after = await this.deps.repo.seriesFacts(seriesId);
    const entryId = result.entry_id ?? (books > 0 ? await this.deps.metadata.firstEntryOf(group.groupId) : null);
    return { ...result, entry_id: entryId, books, external_id: after?.external_id ?? null };
  }

  /**
   * The provider's issues or volumes onto the series' books with the same number (unlocked fields only); how many
   * books changed. A provider without them, or failing to list them, leaves the books as they are.
   */
  private async applyBooks(
    caller: Caller | null,
    seriesId: string,
    active: ActiveProvider,
    externalId: string,
    source: { detail: string; label: string },
    group: HistoryGroup,
  ): Promise<number> {
    if (!active.provider.books) return 0;
    const fetched = await active.provider.books(active.client, externalId).catch(() => []);
    if (fetched.length === 0) return 0;
    const byNumber = new Map(fetched.map((b) => [numberKey(b.number), b]));
    let changed = 0;
    for (const book of await this.deps.repo.seriesBooks(seriesId)) {
      const match = book.number === null ? undefined : byNumber.get(numberKey(book.number));
      if (!match) continue;
      const values = Object.fromEntries(
        (['title', 'release_date', 'summary', 'isbn'] as const).flatMap((f) => (match[f] === undefined ? [] : [[f, match[f]]])),
      );
      const result = await this.deps.metadata.applyFromProvider(caller, 'book', book.id, values, source, group);
      if (result.applied.length > 0) changed += 1;
    }
    return changed;
  }

  /** `POST /series/{id}/identify/cover`: the provider's cover, fetched by the server, as the series' chosen cover. */
  async useCover(caller: Caller, seriesId: string, input: { provider: string; external_id: string }): Promise<void> {
    await this.deps.requireSeries(caller, seriesId);
    const active = await this.deps.providers.one(input.provider);
    const entry = await active.provider.get(active.client, input.external_id).catch((err: unknown) => {
      if (err instanceof ProviderError && err.status === 404)
        throw notFound(`${active.provider.label} entry`, { external_id: input.external_id });
      throw new ProviderUnavailable(problemOf(err, active.provider.label));
    });
    if (!entry.cover_url) throw notFound(`${active.provider.label} cover`);
    const image = await this.cover(input.provider, entry.cover_url);
    await this.deps.setCover(caller, seriesId, image.data);
  }

  /** A candidate's cover through the server: only from the provider's image hosts or its own address. */
  async cover(providerName: string, src: string): Promise<{ data: Buffer; mediaType: string }> {
    const active = await this.deps.providers.one(providerName);
    let url: URL;
    try {
      url = new URL(src);
    } catch {
      throw badRequest('src must be the address of a cover', { field: 'src' });
    }
    const own = new URL((await this.deps.providers.describe(providerName)).base_url).host;
    const hosts = [...(COVER_HOSTS[providerName] ?? []), own];
    if (!['http:', 'https:'].includes(url.protocol) || !hosts.includes(url.host))
      throw badRequest(`Covers are fetched only from ${active.provider.label}'s own hosts`, { hosts });
    try {
      return await active.client.image(url);
    } catch (err) {
      throw new ProviderUnavailable(problemOf(err, active.provider.label));
    }
  }

  /**
   * Identifies one series without a person: a refresh asks again the entry it matched; otherwise the best
   * candidate is applied when sure, sent to review when plausible, kept as "no match" when not.
   */
  async identifyOne(
    seriesId: string,
    options: { refresh: boolean; skip: Set<string> },
  ): Promise<{ outcome: IdentifyOutcome; problems: ProviderProblem[] }> {
    const facts = await this.facts(seriesId);
    if (options.refresh) {
      const ids = parseJsonColumn<{ provider: string; id: string }[]>(facts.external_ids, []);
      const mediaTypes = (await this.matchQuery(facts)).mediaTypes;
      for (const a of await this.deps.providers.active(mediaTypes)) {
        const matched = ids.find((i) => i.provider === a.row.name);
        if (!matched || options.skip.has(a.row.name)) continue;
        try {
          await this.apply(null, seriesId, { provider: a.row.name, external_id: matched.id });
          return { outcome: 'applied', problems: [] };
        } catch (err) {
          const problem = err instanceof ProviderUnavailable ? err.problem : problemOf(err, a.provider.label);
          if (DOWN.has(problem.kind)) options.skip.add(a.row.name);
          return { outcome: 'failed', problems: [problem] };
        }
      }
    }
    const { query, scored, problems, asked } = await this.gather(facts, undefined, options.skip);
    if (asked === 0 || (scored.length === 0 && problems.length > 0)) return { outcome: 'failed', problems };
    const decision = decide(
      scored.map((s) => s.score.score),
      this.deps.thresholds(),
    );
    if (decision === 'apply') {
      const best = scored[0]!;
      await this.apply(null, seriesId, { provider: best.entry.provider, external_id: best.entry.external_id });
      return { outcome: 'applied', problems };
    }
    const existing = await this.deps.repo.reviewOfSeries(seriesId);
    // A person's decision stands: a rejected series is not asked about again by a task.
    if (existing?.status === 'rejected') return { outcome: 'no_match', problems };
    await this.deps.repo.saveReview({
      id: existing?.id ?? newId(),
      series_id: seriesId,
      library_id: facts.library_id,
      status: decision === 'review' ? 'pending' : 'no_match',
      query: query.title,
      candidates: JSON.stringify(scored.slice(0, 10).map(candidateView)),
      best_score: scored[0]?.score.score ?? 0,
      created_at: nowIso(),
      decided_at: null,
      decided_by: null,
    });
    return { outcome: decision === 'review' ? 'review' : 'no_match', problems };
  }

  /** `POST /libraries/{id}/identify`: the task (the one already queued or running for the library, if any). */
  async requestLibrary(caller: Caller | null, libraryId: string, which: Which): Promise<TaskRow> {
    const library = await this.deps.repo.library(libraryId);
    if (!library || (caller && !inScope(scopeFor(caller), libraryId))) throw notFound('Library');
    if (caller && (await this.deps.providers.enabled()).length === 0)
      throw badRequest('No metadata source is turned on: an administrator turns them on in Administration → Metadata sources');
    const { task } = await this.deps.queue.enqueue({
      type: IDENTIFY_TASK,
      libraryId,
      payload: { which },
      activeKey: `${IDENTIFY_TASK}:${libraryId}`,
      maxAttempts: 1,
    });
    return task;
  }

  /** After a scan that made series: identify the new ones, when the library asks for it and a source is on. */
  async afterScan(libraryId: string, seriesCreated: number): Promise<void> {
    if (seriesCreated === 0) return;
    const library = await this.deps.repo.library(libraryId);
    if (!library || parseJsonColumn<{ identify_after_scan?: boolean }>(library.scanning_config, {}).identify_after_scan !== true) return;
    if ((await this.deps.providers.enabled()).length === 0) return;
    await this.requestLibrary(null, libraryId, 'unmatched');
  }

  /** Keeps one refresh job per library with an `identify_schedule` (called at start and when a library changes). */
  async syncSchedules(libraryId?: string): Promise<void> {
    const libraries = libraryId
      ? [await this.deps.repo.library(libraryId)].filter((l) => l !== undefined)
      : await this.deps.repo.libraries();
    if (libraryId && libraries.length === 0) this.deps.scheduler.unschedule(scheduleKey(libraryId));
    for (const library of libraries) {
      const expression = parseJsonColumn<{ identify_schedule?: string | null }>(library.scanning_config, {}).identify_schedule;
      if (!expression || cronError(expression)) {
        this.deps.scheduler.unschedule(scheduleKey(library.id));
        continue;
      }
      this.deps.scheduler.schedule(scheduleKey(library.id), expression, async () => {
        if ((await this.deps.providers.enabled()).length === 0) return;
        await this.requestLibrary(null, library.id, 'matched').catch((err: unknown) =>
          this.deps.onError(err, `identify_schedule: could not queue the refresh of library ${library.id}`),
        );
      });
    }
  }

  /** The `identify_library` task: every series of the library (or the unmatched, or the matched to refresh). */
  async runLibrary(ctx: TaskContext): Promise<unknown> {
    const payload = ctx.payload as { which?: Which };
    const libraryId = ctx.task.library_id;
    if (!libraryId) throw new Error('identify_library needs a library');
    const which = payload.which ?? 'unmatched';
    const ids = await this.deps.repo.librarySeries(libraryId, which);
    const counts: Record<IdentifyOutcome, number> = { applied: 0, review: 0, no_match: 0, failed: 0 };
    const problems = new Map<string, ProviderProblem & { series: number }>();
    const skip = new Set<string>();
    const pace = new Pacing(this.deps.responses);
    for (const [i, id] of ids.entries()) {
      if (ctx.signal.aborted) break;
      await pace.between();
      ctx.progress({ current: i, total: ids.length, message: `${i} of ${ids.length} series`, details: { ...counts } });
      try {
        const { outcome, problems: found } = await this.identifyOne(id, { refresh: which === 'matched', skip });
        counts[outcome] += 1;
        for (const p of found) {
          const kept = problems.get(p.provider);
          problems.set(p.provider, { ...p, series: (kept?.series ?? 0) + 1 });
        }
      } catch (err) {
        if (err instanceof Error && err.message.startsWith('Series not found')) continue; // removed meanwhile
        counts.failed += 1;
        const p = problemOf(err);
        problems.set(p.provider || 'identify', { ...p, series: (problems.get(p.provider)?.series ?? 0) + 1 });
      }
    }
    ctx.progress({ current: ids.length, total: ids.length, message: `${ids.length} series`, details: { ...counts } });
    return { series: ids.length, ...counts, cancelled: ctx.signal.aborted, problems: [...problems.values()] };
  }

  /** `GET /metadata/review`: the series waiting for a person (or another status), among those the caller sees. */
  async reviews(
    caller: Caller,
    input: { status: 'pending' | 'no_match' | 'accepted' | 'rejected'; library_id?: string },
    page: { offset: number; limit: number },
  ) {
    const scope = scopeFor(caller);
    const [{ total, rows }, counts] = await Promise.all([
      this.deps.repo.reviews([input.status], scope, page, input.library_id),
      this.deps.repo.reviewCounts(scope),
    ]);
    return {
      total,
      counts: {
        pending: counts.pending ?? 0,
        no_match: counts.no_match ?? 0,
        accepted: counts.accepted ?? 0,
        rejected: counts.rejected ?? 0,
      },
      data: rows.map((r) => ({ ...reviewView(r), series_title: r.series_title ?? r.series_name })),
    };
  }

  private async review(caller: Caller, id: string): Promise<ReviewRow> {
    const row = await this.deps.repo.review(id);
    if (!row || !(await this.deps.repo.visibleSeries([row.series_id], scopeFor(caller))).has(row.series_id)) throw notFound('Review');
    return row;
  }

  /** Accepts the best candidate, or the one named: applied as if from the series page. */
  async accept(caller: Caller, id: string, input: { provider?: string; external_id?: string }) {
    const row = await this.review(caller, id);
    if (row.status === 'accepted' || row.status === 'rejected')
      throw conflict(`This review is already ${row.status}`, { status: row.status });
    const candidates = parseJsonColumn<CandidateView[]>(row.candidates, []);
    const chosen = input.provider && input.external_id ? { provider: input.provider, external_id: input.external_id } : candidates[0];
    if (!chosen) throw badRequest('This review has no candidate: search for one, then accept it', { review_id: id });
    const applied = await this.apply(caller, row.series_id, { provider: chosen.provider, external_id: chosen.external_id });
    await this.deps.repo.decideReview(id, 'accepted', nowIso(), caller.user.id);
    return { ...applied, review: reviewView({ ...row, status: 'accepted', decided_at: nowIso(), decided_by: caller.user.id }) };
  }

  async reject(caller: Caller, id: string) {
    const row = await this.review(caller, id);
    if (row.status === 'rejected') throw conflict('This review is already rejected', { status: row.status });
    const at = nowIso();
    await this.deps.repo.decideReview(id, 'rejected', at, caller.user.id);
    return reviewView({ ...row, status: 'rejected', decided_at: at, decided_by: caller.user.id });
  }
}

/**
 * How a library's identification shares this thread with readers: scoring a series' candidates is work here, so
 * between series the requests waiting go first, and while the server answers many (more than 20 a second) the task
 * works about a sixteenth of the time and waits the rest, so that pages keep their speed. Idle, it runs flat out.
 */
class Pacing {
  private seen = 0;
  private since = Date.now();
  private busy = false;
  private started = performance.now();

  constructor(private readonly responses?: () => number) {
    this.seen = responses?.() ?? 0;
  }

  async between(): Promise<void> {
    const worked = performance.now() - this.started;
    const now = Date.now();
    if (this.responses && now - this.since >= 250) {
      const total = this.responses();
      this.busy = ((total - this.seen) * 1000) / (now - this.since) > 20;
      [this.seen, this.since] = [total, now];
    }
    if (this.busy) await new Promise<void>((resolve) => setTimeout(resolve, Math.min(500, Math.max(10, worked * 15))));
    else await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/** A provider that could not answer a request a person made: 502 with what went wrong in words. */
export class ProviderUnavailable extends AppError {
  constructor(readonly problem: ProviderProblem) {
    super(502, 'BadGateway', problem.message, problem);
    this.name = 'ProviderUnavailable';
  }
}

function candidateView(s: Scored): CandidateView {
  const e = s.entry;
  return {
    provider: e.provider,
    provider_label: s.label,
    external_id: e.external_id,
    title: e.title,
    year: e.candidate.year ?? null,
    publisher: e.candidate.publisher ?? null,
    score: s.score.score,
    why: s.score.why,
    url: e.url,
    cover_url: e.cover_url,
    cover_path: e.cover_url
      ? `/api/v1/metadata/cover?provider=${encodeURIComponent(e.provider)}&src=${encodeURIComponent(e.cover_url)}`
      : null,
    fields: e.fields,
  };
}

function reviewView(r: ReviewRow) {
  return {
    id: r.id,
    series_id: r.series_id,
    library_id: r.library_id,
    status: r.status as 'pending' | 'no_match' | 'accepted' | 'rejected',
    query: r.query,
    best_score: Number(r.best_score),
    candidates: parseJsonColumn<CandidateView[]>(r.candidates, []),
    created_at: r.created_at,
    decided_at: r.decided_at,
  };
}

/** An issue number compared across spellings: "001" is "1", "12.50" is "12.5"; otherwise as written, folded. */
function numberKey(number: string): string {
  const n = Number(number.trim());
  return Number.isFinite(n) ? String(n) : number.trim().toLowerCase();
}

/** The series' ids with this entry's (and the ids it links to) in place of the same providers' old ones. */
function mergedIds(stored: string, entry: ProviderEntry): { provider: string; id: string; url: string | null }[] {
  const fresh = [{ provider: entry.provider, id: entry.external_id, url: entry.url }, ...entry.linked_ids];
  const kept = parseJsonColumn<{ provider: string; id: string; url: string | null }[]>(stored, []).filter(
    (old) => !fresh.some((f) => f.provider === old.provider),
  );
  return [...fresh, ...kept].filter((x, i, all) => all.findIndex((y) => y.provider === x.provider) === i).slice(0, 20);
}

/** What a series is, for choosing providers: the library says so, or its books' formats and language do. */
function mediaTypesOf(facts: SeriesFacts, formats: readonly string[]): MediaType[] {
  const configured = parseJsonColumn<{ media_type?: string }>(facts.scanning_config, {}).media_type;
  if (configured === 'manga' || configured === 'comics' || configured === 'books') return [configured];
  if (formats.length > 0 && formats.every((f) => f === 'epub' || f === 'pdf')) return ['books'];
  if (facts.reading_direction === 'rtl' || ['ja', 'ko', 'zh'].includes((facts.language ?? '').slice(0, 2))) return ['manga'];
  return ['manga', 'comics'];
}
