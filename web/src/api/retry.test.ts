import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, retryAfterOf } from './client';
import { fetchWaitingOutRateLimit, queryRetryDelay, RATE_LIMIT_RETRIES, rateLimitWaitMs, shouldRetryQuery } from './retry';

const limited = (seconds: number | null) => new ApiError(429, 'rate_limit_exceeded', 'Too many requests', seconds);

describe('asking again after an error', () => {
  it('waits out a 429 a few times, never another 4xx, and gives a network error or a 5xx one more try', () => {
    for (let n = 0; n < RATE_LIMIT_RETRIES; n++) expect(shouldRetryQuery(n, limited(1))).toBe(true);
    expect(shouldRetryQuery(RATE_LIMIT_RETRIES, limited(1))).toBe(false);
    expect(shouldRetryQuery(0, new ApiError(404, 'NotFound', 'No such series'))).toBe(false);
    expect(shouldRetryQuery(0, new ApiError(403, 'Forbidden', 'Not allowed'))).toBe(false);
    expect(shouldRetryQuery(0, new ApiError(503, 'ServiceUnavailable', 'Busy'))).toBe(true);
    expect(shouldRetryQuery(1, new ApiError(503, 'ServiceUnavailable', 'Busy'))).toBe(false);
    expect(shouldRetryQuery(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(shouldRetryQuery(1, new TypeError('Failed to fetch'))).toBe(false);
  });

  it('waits what the server says after a 429 (1 s without a word, a minute at most), spread a little', () => {
    expect(rateLimitWaitMs(3, 0, () => 0)).toBe(3000);
    expect(rateLimitWaitMs(null, 0, () => 0)).toBe(1000);
    expect(rateLimitWaitMs(0, 0, () => 0)).toBe(1000);
    expect(rateLimitWaitMs(3600, 0, () => 0)).toBe(60_000);
    expect(rateLimitWaitMs(1, 0, () => 0.999)).toBeLessThan(1250);
    expect(rateLimitWaitMs(1, 3, () => 0.999)).toBeGreaterThan(1900);
    expect(queryRetryDelay(0, limited(2))).toBeGreaterThanOrEqual(2000);
    // Anything else: TanStack Query's usual doubling.
    expect(queryRetryDelay(0, new TypeError('Failed to fetch'))).toBe(1000);
    expect(queryRetryDelay(2, new ApiError(500, 'InternalError', 'x'))).toBe(4000);
  });

  it('reads Retry-After from a raw response', () => {
    expect(retryAfterOf(new Response(null, { status: 429, headers: { 'Retry-After': '2' } }))).toBe(2);
    expect(retryAfterOf(new Response(null, { status: 429 }))).toBeNull();
    expect(retryAfterOf(new Response(null, { status: 429, headers: { 'Retry-After': 'soon' } }))).toBeNull();
  });
});

describe("fetchWaitingOutRateLimit (covers, the reader's pages)", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });
  const refused = () => new Response('{}', { status: 429, headers: { 'Retry-After': '1' } });

  it('asks again after the wait, and returns the first answer that is not a 429', async () => {
    vi.useFakeTimers();
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(refused())
      .mockResolvedValueOnce(new Response('cover', { status: 200 }));
    vi.stubGlobal('fetch', fetch);
    const answer = fetchWaitingOutRateLimit('/api/v1/series/x/thumbnail');
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect((await answer).status).toBe(200);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('gives up after RATE_LIMIT_RETRIES more tries and hands back the 429; other errors are not retried', async () => {
    vi.useFakeTimers();
    const fetch = vi.fn().mockImplementation(() => Promise.resolve(refused()));
    vi.stubGlobal('fetch', fetch);
    const answer = fetchWaitingOutRateLimit('/x');
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await answer).status).toBe(429);
    expect(fetch).toHaveBeenCalledTimes(RATE_LIMIT_RETRIES + 1);

    const missing = vi.fn().mockResolvedValue(new Response('{}', { status: 404 }));
    vi.stubGlobal('fetch', missing);
    expect((await fetchWaitingOutRateLimit('/y')).status).toBe(404);
    expect(missing).toHaveBeenCalledTimes(1);
  });

  it('stops waiting when the request is cancelled (the reader moved on)', async () => {
    vi.useFakeTimers();
    vi.stubGlobal(
      'fetch',
      vi.fn().mockImplementation(() => Promise.resolve(refused())),
    );
    const controller = new AbortController();
    const answer = fetchWaitingOutRateLimit('/z', { signal: controller.signal });
    const settled = expect(answer).rejects.toThrow('moved on');
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('moved on'));
    await settled;
  });
});
