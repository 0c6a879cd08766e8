import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const MAX_REMEMBERED = 20_000;

/**
 * Last-Modified for generated feeds. A feed's content changes with things that carry no timestamp of their
 * own (an entry leaving a list, a page read), and KOReader decides from `Last-Modified` alone whether its cached
 * copy is current. So the validator is derived from the content: the ETag is a hash of the body, and
 * Last-Modified is when this URL last started answering that body for this user (always at least a second
 * after the previous body's, so two versions never share a date). The memory is a bounded cache: an instance
 * that has not seen a body yet says "now", which only costs the client one fresh download.
 */
export class FeedValidators {
  private readonly seen = new Map<string, { etag: string; lastModified: number }>();

  /** Last-Modified (epoch ms, whole seconds) of `etag` as the current body of `key`. */
  stamp(key: string, etag: string, now = Date.now()): number {
    const previous = this.seen.get(key);
    if (previous?.etag === etag) {
      this.seen.delete(key);
      this.seen.set(key, previous);
      return previous.lastModified;
    }
    const second = Math.floor(now / 1000) * 1000;
    const lastModified = previous ? Math.max(second, previous.lastModified + 1000) : second;
    this.seen.delete(key);
    this.seen.set(key, { etag, lastModified });
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    return lastModified;
  }
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2). */
export function isNotModified(request: FastifyRequest, etag: string, lastModified: number): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch) return etagMatches(ifNoneMatch, etag);
  const since = request.headers['if-modified-since'];
  if (!since) return false;
  const time = Date.parse(since);
  return Number.isFinite(time) && lastModified <= time;
}

/**
 * Sends a feed document with ETag, Last-Modified and `Cache-Control: private, no-cache` (clients keep it and
 * revalidate), or 304. HEAD gets the same headers without a body (Fastify's automatic HEAD route runs this
 * handler). The body goes out as is: never compressed unless a compression layer is configured in front.
 */
export function sendFeed(
  request: FastifyRequest,
  reply: FastifyReply,
  validators: FeedValidators,
  body: string,
  contentType: string,
): FastifyReply {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  // The language is part of what the body says (feed titles follow Accept-Language).
  const key = `${request.caller?.user.id ?? '-'} ${request.headers['accept-language'] ?? ''} ${request.url}`;
  const lastModified = validators.stamp(key, etag);
  reply
    .header('content-type', contentType)
    .header('etag', etag)
    .header('last-modified', new Date(lastModified).toUTCString())
    .header('cache-control', 'private, no-cache')
    .header('vary', 'Authorization, X-API-Key, Accept-Language');
  if (isNotModified(request, etag, lastModified)) return reply.code(304).send();
  return reply.send(body);
}
