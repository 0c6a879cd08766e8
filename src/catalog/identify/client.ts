import { createHash } from 'node:crypto';
import { TokenBuckets, type BucketLimits } from '../../http/rate-limit.js';

/**
 * Colophon's calls to one online database: each with a time limit, at most the provider's documented rate (a token
 * bucket the caller waits on, never a refusal), retried with growing waits when the provider is busy or failing
 * (5xx, a lost connection), and after exactly the wait a 429's `Retry-After` asks. A failure is said in words by kind,
 * so the administrator's screen can tell what is wrong.
 */

export interface ProviderClientOptions {
  /** The provider's name, in errors. */
  name: string;
  /** `metadata.providers.<name>.base_url`: the public API by default; a mirror, a proxy or a test server. */
  baseUrl: string;
  /** MangaDex refuses clients without a real one; every provider is told who calls. */
  userAgent: string;
  /** The provider's documented rate: `rate` requests a second on average, `burst` at once. */
  limits: BucketLimits;
  timeoutMs?: number;
  /** Tries after the first, for 429, 5xx and lost connections. */
  retries?: number;
  /** The first wait between tries (doubled each time) when the provider gives none. */
  backoffMs?: number;
  /** The longest `Retry-After` waited for; a longer one fails at once as `rate_limited` with its time. */
  maxRetryAfterMs?: number;
  /** Header sent with every request (a key or token the administrator entered), never logged. */
  headers?: Record<string, string>;
  /** Query parameters sent with every request (ComicVine's `api_key`): not part of the cached request's key. */
  secretQuery?: Record<string, string>;
  /** Answers kept for a while (default 7 days): the same request again sends nothing. */
  cache?: ResponseCache;
  cacheTtlMs?: number;
  /** Told before each request that goes out (not a kept answer): counts a quota, or refuses while paused. */
  beforeRequest?: () => Promise<void>;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Where answers are kept (ResponseCacheRepository fits it), by provider and a hash of the request. */
export interface ResponseCache {
  get(provider: string, requestKey: string, now: Date): Promise<unknown>;
  put(provider: string, requestKey: string, body: unknown, now: Date, ttlMs: number): Promise<void>;
}

/** The answers of online databases are kept 7 days unless configured otherwise. */
export const DEFAULT_CACHE_TTL_MS = 7 * 24 * 3_600_000;

export type ProviderFailure = 'timeout' | 'unreachable' | 'rate_limited' | 'refused' | 'server_error' | 'bad_answer';

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderFailure,
    message: string,
    readonly status: number | null = null,
    /** When the provider said it may be asked again (a 429's Retry-After). */
    readonly retryAt: Date | null = null,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as milliseconds from now: seconds, or an HTTP date. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export class ProviderClient {
  private readonly buckets = new TokenBuckets(1);
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: ProviderClientOptions) {
    this.sleep = options.sleep ?? wait;
    this.now = options.now ?? Date.now;
  }

  /** Waits for a token of the provider's bucket. */
  private async token(): Promise<void> {
    for (;;) {
      const taken = this.buckets.take('calls', this.options.limits, this.now());
      if (taken.allowed) return;
      // One token's time, then ask again (resetSeconds is whole seconds: too coarse for 5 a second).
      await this.sleep(Math.ceil(1000 / this.options.limits.rate));
    }
  }

  /** A JSON answer of `path` (relative to the base URL), GET with a query or POST with a JSON body. */
  async json(path: string, request: { query?: Record<string, string | string[]>; body?: unknown } = {}): Promise<unknown> {
    const url = new URL(path.replace(/^\//, ''), this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [key, value] of Object.entries(request.query ?? {}))
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, v);
    const { name, cache } = this.options;
    // The key names the request, not who asked: the headers (a key or token) are not part of it.
    const requestKey = createHash('sha256')
      .update(
        `${request.body === undefined ? 'GET' : 'POST'} ${url.href}\n${request.body === undefined ? '' : JSON.stringify(request.body)}`,
      )
      .digest('hex');
    if (cache) {
      const kept = await cache.get(name, requestKey, new Date(this.now()));
      if (kept !== undefined) return kept;
    }
    const sent = new URL(url);
    for (const [key, value] of Object.entries(this.options.secretQuery ?? {})) sent.searchParams.set(key, value);
    const answer = await this.fetchJson(sent, request);
    await cache?.put(name, requestKey, answer, new Date(this.now()), this.options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS);
    return answer;
  }

  /**
   * An image the provider serves (a cover), at most `maxBytes`, within the same rate, time limit and quota as its
   * answers. Only addresses on the provider's own image hosts are fetched (the caller checks); redirects are not
   * followed, so an address cannot lead elsewhere.
   */
  async image(url: URL, maxBytes = 10 * 1024 * 1024): Promise<{ data: Buffer; mediaType: string }> {
    const { name } = this.options;
    await this.options.beforeRequest?.();
    await this.token();
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, {
        headers: { accept: 'image/*', 'user-agent': this.options.userAgent },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw timedOut
        ? new ProviderError(name, 'timeout', `sent no cover within ${(this.options.timeoutMs ?? 10_000) / 1000} s`)
        : new ProviderError(name, 'unreachable', 'cannot be reached for the cover');
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!response.ok || !/^image\/(jpeg|png|webp|gif)$/.test(mediaType)) {
      await response.body?.cancel();
      throw new ProviderError(
        name,
        'bad_answer',
        `has no cover there (HTTP ${response.status}, ${mediaType || 'no type'})`,
        response.status,
      );
    }
    const data = Buffer.from(await response.arrayBuffer());
    if (data.length > maxBytes) throw new ProviderError(name, 'bad_answer', 'sent a cover larger than 10 MB');
    return { data, mediaType };
  }

  private async fetchJson(url: URL, request: { body?: unknown }): Promise<unknown> {
    const { name } = this.options;
    const retries = this.options.retries ?? 3;
    let backoff = this.options.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      await this.options.beforeRequest?.();
      await this.token();
      let response: Response;
      try {
        response = await (this.options.fetch ?? fetch)(url, {
          method: request.body === undefined ? 'GET' : 'POST',
          headers: {
            accept: 'application/json',
            'user-agent': this.options.userAgent,
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...this.options.headers,
          },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        });
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        if (attempt < retries) {
          await this.sleep(backoff);
          backoff *= 2;
          continue;
        }
        throw timedOut
          ? new ProviderError(name, 'timeout', `no answer within ${(this.options.timeoutMs ?? 10_000) / 1000} s`)
          : new ProviderError(name, 'unreachable', `cannot be reached (${err instanceof Error ? err.message : String(err)})`);
      }
      if (response.status === 429 || response.status >= 500) {
        await response.body?.cancel();
        const asked = retryAfterMs(response.headers.get('retry-after'), this.now());
        const limit = this.options.maxRetryAfterMs ?? 120_000;
        if (response.status === 429 && asked !== null && asked > limit) {
          throw new ProviderError(name, 'rate_limited', 'asks to wait before it is asked again', 429, new Date(this.now() + asked));
        }
        if (attempt < retries) {
          await this.sleep(asked ?? backoff);
          backoff *= 2;
          continue;
        }
        throw response.status === 429
          ? new ProviderError(
              name,
              'rate_limited',
              'still refuses: too many requests',
              429,
              asked === null ? null : new Date(this.now() + asked),
            )
          : new ProviderError(name, 'server_error', `answers with an error (HTTP ${response.status})`, response.status);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new ProviderError(
          name,
          'refused',
          response.status === 401 || response.status === 403
            ? `refuses the key or token (HTTP ${response.status})`
            : `refuses the request (HTTP ${response.status})`,
          response.status,
        );
      }
      try {
        return (await response.json()) as unknown;
      } catch {
        throw new ProviderError(name, 'bad_answer', 'answered with something that is not JSON', response.status);
      }
    }
  }
}
