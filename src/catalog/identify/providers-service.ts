import type { Config } from '../../config/schema.js';
import { nowIso } from '../../db/ids.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { SecretBox } from '../../util/secret-box.js';
import { DEFAULT_CACHE_TTL_MS, ProviderClient, ProviderError, type ResponseCache } from './client.js';
import { httpProvider } from './providers/http.js';
import type { MediaType, MetadataProvider } from './providers/provider.js';
import { BUILTIN_PROVIDERS } from './providers/registry.js';
import type { IdentifyRepository, ProviderRow } from './repository.js';

/** A provider as the administrator's screen shows it: never its key, only whether one is set. */
export interface ProviderView {
  name: string;
  label: string;
  kind: 'builtin' | 'http';
  enabled: boolean;
  priority: number;
  media_types: MediaType[];
  needs_key: boolean;
  key_set: boolean;
  key_hint: string | null;
  base_url: string;
  header_name: string | null;
  rate: { requests_per_second: number; burst: number };
  quota: { requests: number; window_hours: number; used: number } | null;
  paused_until: string | null;
  last_problem: string | null;
  limits_doc: string;
}

export interface ProviderChange {
  enabled?: boolean;
  priority?: number;
  media_types?: MediaType[];
  /** A key or token; null removes it. */
  key?: string | null;
  /** HTTP providers only (a built-in one's address is `metadata.providers.<name>.base_url`). */
  base_url?: string;
  header_name?: string | null;
}

/** One provider ready to be asked: its module, its client, its settings. */
export interface ActiveProvider {
  provider: MetadataProvider;
  client: ProviderClient;
  row: ProviderRow;
}

const HTTP_NAME = /^[a-z][a-z0-9-]{1,39}$/;

/**
 * The online databases' settings and clients (decision 045): built-in providers are listed off until an
 * administrator turns them on; HTTP providers are added by address. Keys are kept sealed (util/secret-box.ts) and
 * opened only to build a client. A quota (ComicVine's hourly, Metron's daily) is counted per request sent, and a
 * provider whose quota ran out, or who asked for a long wait, is paused until then.
 */
export class ProvidersService {
  private readonly clients = new Map<string, { stamp: string; client: ProviderClient }>();

  constructor(
    private readonly deps: {
      repo: IdentifyRepository;
      config: Config;
      box: Pick<SecretBox, 'seal' | 'open'>;
      cache: ResponseCache;
      userAgent: string;
      fetch?: typeof fetch;
      now?: () => number;
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private builtin(name: string): MetadataProvider | undefined {
    return BUILTIN_PROVIDERS.find((p) => p.name === name);
  }

  /** A built-in provider's row when it has never been configured: off, in the default priority. */
  private defaultRow(p: MetadataProvider): ProviderRow {
    return {
      name: p.name,
      kind: 'builtin',
      enabled: 0,
      priority: (BUILTIN_PROVIDERS.indexOf(p) + 1) * 10,
      media_types: JSON.stringify(p.mediaTypes),
      base_url: null,
      header_name: null,
      secret: null,
      paused_until: null,
      quota_day: null,
      quota_used: 0,
      last_problem: null,
      updated_at: nowIso(),
    };
  }

  private async rows(): Promise<ProviderRow[]> {
    const stored = new Map((await this.deps.repo.providers()).map((r) => [r.name, r]));
    const rows = BUILTIN_PROVIDERS.map((p) => stored.get(p.name) ?? this.defaultRow(p));
    for (const r of stored.values()) if (r.kind === 'http') rows.push(r);
    return rows.sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name));
  }

  private moduleOf(row: ProviderRow): MetadataProvider {
    if (row.kind === 'http') return httpProvider(row.name, mediaTypesOf(row), row.header_name);
    return this.builtin(row.name)!;
  }

  private baseUrl(row: ProviderRow): string {
    if (row.kind === 'http') return row.base_url ?? '';
    return this.deps.config.metadata.providers[row.name as keyof Config['metadata']['providers']].base_url;
  }

  private view(row: ProviderRow): ProviderView {
    const p = this.moduleOf(row);
    const window = p.quota ? quotaWindow(this.now(), p.quota.windowHours) : null;
    return {
      name: row.name,
      label: p.label,
      kind: row.kind === 'http' ? 'http' : 'builtin',
      enabled: row.enabled === 1,
      priority: row.priority,
      media_types: mediaTypesOf(row),
      needs_key: p.key === 'required',
      key_set: row.secret !== null,
      key_hint: p.keyHint ?? null,
      base_url: this.baseUrl(row),
      header_name: row.header_name,
      rate: { requests_per_second: p.limits.rate, burst: p.limits.burst },
      quota: p.quota
        ? { requests: p.quota.requests, window_hours: p.quota.windowHours, used: row.quota_day === window ? Number(row.quota_used) : 0 }
        : null,
      paused_until: row.paused_until && Date.parse(row.paused_until) > this.now() ? row.paused_until : null,
      last_problem: row.last_problem,
      limits_doc: p.limitsDoc,
    };
  }

  async list(): Promise<ProviderView[]> {
    return (await this.rows()).map((r) => this.view(r));
  }

  async describe(name: string): Promise<ProviderView> {
    return this.view(await this.require(name));
  }

  private async require(name: string): Promise<ProviderRow> {
    const row = (await this.rows()).find((r) => r.name === name);
    if (!row) throw notFound('Metadata provider');
    return row;
  }

  /** Changes a provider's settings; an unknown name with `base_url` adds an HTTP provider. */
  async configure(name: string, change: ProviderChange): Promise<ProviderView> {
    let row = (await this.rows()).find((r) => r.name === name);
    if (!row) {
      if (change.base_url === undefined)
        throw notFound('Metadata provider', { hint: 'give base_url to add an HTTP provider of this name' });
      if (!HTTP_NAME.test(name))
        throw badRequest('An HTTP provider is named with lower-case letters, digits and -, 2 to 40 long', { name });
      row = {
        ...this.defaultRow(BUILTIN_PROVIDERS[0]!),
        name,
        kind: 'http',
        priority: 200,
        media_types: JSON.stringify(['manga', 'comics', 'books']),
      };
    }
    const next: ProviderRow = { ...row, updated_at: nowIso() };
    if (change.enabled !== undefined) next.enabled = change.enabled ? 1 : 0;
    if (change.priority !== undefined) next.priority = change.priority;
    if (change.media_types !== undefined) {
      if (change.media_types.length === 0) throw badRequest('A provider serves at least one media type', { field: 'media_types' });
      next.media_types = JSON.stringify([...new Set(change.media_types)]);
    }
    if (change.key !== undefined)
      next.secret = change.key === null || change.key.trim() === '' ? null : this.deps.box.seal(change.key.trim());
    if (change.base_url !== undefined || change.header_name !== undefined) {
      if (row.kind !== 'http')
        throw badRequest(`A built-in provider's address is the configuration key metadata.providers.${name}.base_url`, {
          field: 'base_url',
        });
      if (change.base_url !== undefined) next.base_url = checkedAddress(change.base_url);
      if (change.header_name !== undefined) next.header_name = change.header_name?.trim() || null;
    }
    const p = this.moduleOf(next);
    if (next.enabled === 1 && p.key === 'required' && next.secret === null)
      throw badRequest(`${p.label} needs a key before it can be turned on: ${p.keyHint ?? 'its API key'}`, { field: 'key' });
    // A change of address or key is a new start: an old problem or pause no longer says anything.
    if (change.key !== undefined || change.base_url !== undefined) Object.assign(next, { last_problem: null, paused_until: null });
    await this.deps.repo.saveProvider(next);
    this.clients.delete(name);
    return this.view(next);
  }

  async remove(name: string): Promise<void> {
    const row = await this.require(name);
    if (row.kind !== 'http') throw badRequest('A built-in provider cannot be removed; turn it off instead', { name });
    await this.deps.repo.deleteProvider(name);
    this.clients.delete(name);
  }

  private client(row: ProviderRow, cached: boolean): ProviderClient {
    const p = this.moduleOf(row);
    const key = row.secret ? this.deps.box.open(row.secret) : null;
    if (row.secret && key === null)
      throw new ProviderError(p.label, 'refused', 'its stored key cannot be opened (was metadata.secret changed?): enter the key again');
    const credentials = key && p.credentials ? p.credentials(key) : {};
    const stamp = `${row.updated_at}|${this.baseUrl(row)}|${cached}`;
    const kept = this.clients.get(`${row.name}|${cached}`);
    if (kept && kept.stamp === stamp) return kept.client;
    const client = new ProviderClient({
      name: p.label,
      baseUrl: this.baseUrl(row),
      userAgent: this.deps.userAgent,
      limits: p.limits,
      timeoutMs: this.deps.config.metadata.timeout_seconds * 1000,
      headers: credentials.headers,
      secretQuery: credentials.query,
      cache: cached ? this.deps.cache : undefined,
      cacheTtlMs: this.deps.config.metadata.cache_ttl_hours * 3_600_000 || DEFAULT_CACHE_TTL_MS,
      beforeRequest: () => this.beforeRequest(row.name),
      fetch: this.deps.fetch,
      now: this.deps.now,
      sleep: this.deps.sleep,
    });
    this.clients.set(`${row.name}|${cached}`, { stamp, client });
    return client;
  }

  /** Refuses while the provider is paused; counts the request against its quota, pausing it when that runs out. */
  private async beforeRequest(name: string): Promise<void> {
    const row = await this.require(name);
    const p = this.moduleOf(row);
    const now = this.now();
    if (row.paused_until && Date.parse(row.paused_until) > now)
      throw new ProviderError(p.label, 'rate_limited', `is paused until ${row.paused_until}`, null, new Date(row.paused_until));
    if (!p.quota) return;
    const window = quotaWindow(now, p.quota.windowHours);
    const used = await this.deps.repo.countRequest(name, window);
    if (used > p.quota.requests) {
      const until = new Date(quotaWindowEnd(now, p.quota.windowHours)).toISOString();
      await this.deps.repo.updateProvider(name, { paused_until: until });
      throw new ProviderError(
        p.label,
        'rate_limited',
        `has used its ${p.quota.requests} requests; paused until ${until}`,
        null,
        new Date(until),
      );
    }
  }

  /** The enabled providers serving any of these media types, by priority. */
  async active(mediaTypes: readonly MediaType[]): Promise<ActiveProvider[]> {
    return (await this.rows())
      .filter((r) => r.enabled === 1 && mediaTypesOf(r).some((m) => mediaTypes.includes(m)))
      .map((row) => ({ provider: this.moduleOf(row), client: this.client(row, true), row }));
  }

  /** One provider by name, enabled or not (a pasted address names it; applying a candidate asks it again). */
  async one(name: string): Promise<ActiveProvider> {
    const row = await this.require(name);
    if (row.enabled !== 1)
      throw badRequest(`${this.moduleOf(row).label} is turned off (Administration → Metadata sources)`, { provider: name });
    return { provider: this.moduleOf(row), client: this.client(row, true), row };
  }

  /** Every enabled provider (for a pasted address, which names its own). */
  async enabled(): Promise<ActiveProvider[]> {
    return (await this.rows())
      .filter((r) => r.enabled === 1)
      .map((row) => ({ provider: this.moduleOf(row), client: this.client(row, true), row }));
  }

  /** Records how the last call went: a failure in words (and a long wait as a pause), or a success. */
  async report(name: string, err: unknown): Promise<void> {
    if (err === null) {
      // Most calls succeed after a success: only a problem on record is cleared (a write per call held up pages).
      if ((await this.deps.repo.provider(name))?.last_problem) await this.deps.repo.updateProvider(name, { last_problem: null });
      return;
    }
    const problem = problemOf(err);
    const changes: Partial<ProviderRow> = { last_problem: problem.message };
    if (problem.kind === 'rate_limited' && problem.retry_at && Date.parse(problem.retry_at) > this.now())
      changes.paused_until = problem.retry_at;
    await this.deps.repo.updateProvider(name, changes);
  }

  /** "Test connection": one uncached request, and what went wrong in words. */
  async test(name: string): Promise<{ ok: boolean; message: string }> {
    const row = await this.require(name);
    const p = this.moduleOf(row);
    if (p.key === 'required' && !row.secret)
      return { ok: false, message: `${p.label} needs a key: ${p.keyHint ?? 'its API key'}. Enter it, then test again.` };
    try {
      await p.test(this.client({ ...row, paused_until: null }, false));
      if (row.kind !== 'builtin' || (await this.deps.repo.provider(name)))
        await this.deps.repo.updateProvider(name, { last_problem: null });
      return { ok: true, message: `${p.label} answers at ${this.baseUrl(row)}.` };
    } catch (err) {
      const problem = problemOf(err);
      if (await this.deps.repo.provider(name)) await this.deps.repo.updateProvider(name, { last_problem: problem.message });
      return { ok: false, message: problem.message };
    }
  }
}

export interface ProviderProblem {
  provider: string;
  kind: string;
  message: string;
  retry_at: string | null;
}

/** A failure as the screens say it. */
export function problemOf(err: unknown, provider = ''): ProviderProblem {
  if (err instanceof ProviderError)
    return { provider: provider || err.provider, kind: err.kind, message: err.message, retry_at: err.retryAt?.toISOString() ?? null };
  if (err instanceof Error && err.name === 'ZodError')
    return {
      provider,
      kind: 'bad_answer',
      message: `${provider || 'The provider'} answered in a shape Colophon does not know`,
      retry_at: null,
    };
  return { provider, kind: 'unknown', message: err instanceof Error ? err.message : String(err), retry_at: null };
}

function mediaTypesOf(row: ProviderRow): MediaType[] {
  try {
    const v = JSON.parse(row.media_types) as unknown;
    return Array.isArray(v) ? (v.filter((m) => m === 'manga' || m === 'comics' || m === 'books') as MediaType[]) : [];
  } catch {
    return [];
  }
}

function checkedAddress(text: string): string {
  try {
    const url = new URL(text.trim());
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // refused below
  }
  throw badRequest('base_url must be a web address starting with http:// or https://', { field: 'base_url' });
}

/** The quota window `now` falls in: UTC hours from midnight, in windows of `hours` (24: the UTC day). */
function quotaWindow(now: number, hours: number): string {
  const start = quotaWindowEnd(now, hours) - hours * 3_600_000;
  return new Date(start).toISOString().slice(0, 13);
}

function quotaWindowEnd(now: number, hours: number): number {
  const size = hours * 3_600_000;
  return Math.floor(now / size) * size + size;
}
