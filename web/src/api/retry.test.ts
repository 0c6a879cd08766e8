import { describe, expect, it } from 'vitest';
import { ApiError } from './client';
import { queryRetryDelay, RATE_LIMIT_RETRIES, rateLimitWaitMs, retryAfterOf, shouldRetryQuery } from './retry';

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
