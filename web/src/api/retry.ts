import { ApiError, retryAfterOf } from './client';

/**
 * The API limits each user to 50 requests a second, bursts of 200 (spec, "Rate limiting"): scrolling a large grid
 * fast asks for pages and covers quicker than that, and the server answers 429 with the wait. A 429 is the one
 * 4xx worth asking again: after that wait, a few times, with a little spread so that the requests refused
 * together do not all come back in the same instant.
 */
export const RATE_LIMIT_RETRIES = 4;

/** The wait before asking again after a 429, in ms: the server's Retry-After (1 s when absent), capped at a minute. */
export function rateLimitWaitMs(retryAfterSeconds: number | null, attempt: number, random: () => number = Math.random): number {
  const seconds = retryAfterSeconds !== null && retryAfterSeconds > 0 ? Math.min(retryAfterSeconds, 60) : 1;
  return seconds * 1000 + Math.floor(random() * 250 * (attempt + 1));
}

/** TanStack Query's `retry`: 429s as above; other 4xx answers will not change; network hiccups and 5xx get one more try. */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status === 429) return failureCount < RATE_LIMIT_RETRIES;
  if (error instanceof ApiError && error.status < 500) return false;
  return failureCount < 1;
}

/** TanStack Query's `retryDelay`: the server's wait for a 429, otherwise its usual doubling from 1 s. */
export function queryRetryDelay(failureCount: number, error: unknown): number {
  if (error instanceof ApiError && error.status === 429) return rateLimitWaitMs(error.retryAfterSeconds, failureCount);
  return Math.min(1000 * 2 ** failureCount, 30_000);
}

/** Waits `ms`, or rejects as soon as the signal aborts. */
function wait(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/**
 * `fetch` for what the browser asks by itself (covers, the reader's pages): a 429 is asked again after the server's
 * wait, up to RATE_LIMIT_RETRIES times; any other answer is returned as it is. Cancelling stops the wait too.
 */
export async function fetchWaitingOutRateLimit(url: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, init);
    if (response.status !== 429 || attempt >= RATE_LIMIT_RETRIES) return response;
    await wait(rateLimitWaitMs(retryAfterOf(response), attempt), init.signal);
  }
}
