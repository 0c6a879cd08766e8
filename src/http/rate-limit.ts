import type { FastifyReply, FastifyRequest } from 'fastify';
import { localize } from '../i18n/messages.js';
import { requestLanguage } from '../i18n/request.js';
import { errorBody } from './errors.js';

export interface BucketLimits {
  /** Tokens added per second. */
  rate: number;
  /** Bucket size: the most requests allowed at once. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

export interface TakeResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until at least one token is available (0 when one is). */
  resetSeconds: number;
}

/**
 * Token buckets keyed by caller. Buckets that have refilled completely carry no information, so the sweep
 * drops them: memory stays proportional to the clients active in the last few seconds, however many IPs call.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly maxBuckets = 200_000) {}

  take(key: string, limits: BucketLimits, now = Date.now()): TakeResult {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxBuckets) this.sweep(now);
      bucket = { tokens: limits.burst, updated: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(limits.burst, bucket.tokens + ((now - bucket.updated) / 1000) * limits.rate);
      bucket.updated = now;
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const resetSeconds = bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) / limits.rate);
    return { allowed, limit: limits.burst, remaining: Math.max(0, Math.floor(bucket.tokens)), resetSeconds };
  }

  /** Whether `take` would allow a request now, without taking anything. */
  hasToken(key: string, limits: BucketLimits, now = Date.now()): boolean {
    const bucket = this.buckets.get(key);
    if (!bucket) return limits.burst >= 1;
    return Math.min(limits.burst, bucket.tokens + ((now - bucket.updated) / 1000) * limits.rate) >= 1;
  }

  /** Removes buckets that would be full by now (their state equals a fresh bucket). */
  sweep(now = Date.now(), fullAfterMs = 60_000): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.updated > fullAfterMs) this.buckets.delete(key);
    // Under a flood of distinct keys, drop the oldest half rather than grow without bound.
    if (this.buckets.size >= this.maxBuckets) {
      let drop = Math.floor(this.buckets.size / 2);
      for (const key of this.buckets.keys()) {
        if (drop-- <= 0) break;
        this.buckets.delete(key);
      }
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

export interface RateLimitOptions {
  enabled(): boolean;
  /** Which bucket a request draws from; undefined exempts it. */
  bucketFor(request: FastifyRequest): { key: string; limits: BucketLimits } | undefined;
}

/** An onRequest hook: adds X-RateLimit-* headers to every response and answers 429 when the bucket is empty. */
export function createRateLimitHook(buckets: TokenBuckets, options: RateLimitOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!options.enabled()) return;
    const target = options.bucketFor(request);
    if (!target) return;
    const result = buckets.take(target.key, target.limits);
    reply.header('X-RateLimit-Limit', String(result.limit));
    reply.header('X-RateLimit-Remaining', String(result.remaining));
    reply.header('X-RateLimit-Reset', String(result.resetSeconds));
    if (!result.allowed) {
      const wait = Math.max(1, result.resetSeconds);
      reply.header('Retry-After', String(wait));
      await reply.code(429).send({
        ...errorBody(
          'rate_limit_exceeded',
          localize(
            requestLanguage(request),
            wait === 1 ? 'Rate limit exceeded: retry in 1 second' : `Rate limit exceeded: retry in ${wait} seconds`,
          ),
        ),
        retry_after: wait,
      });
    }
  };
}
