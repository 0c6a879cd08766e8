import type { FastifyRequest } from 'fastify';
import type { Credentials } from '../../identity/index.js';

/** Every Kobo route lives under this path; the segment after it is the device's API key. */
export const KOBO_PREFIX = '/kobo';

/**
 * The API key of a Kobo request: the path segment after `/kobo/` (the `api_endpoint` pasted into the device's
 * configuration carries it; the device sends no other credential Colophon could check).
 */
export function koboCredentials(request: FastifyRequest): Credentials | undefined {
  if (!request.url.startsWith(`${KOBO_PREFIX}/`)) return undefined;
  const token = request.url.slice(KOBO_PREFIX.length + 1).split(/[/?]/)[0] ?? '';
  if (!token) return undefined;
  try {
    return { kind: 'api_key', value: decodeURIComponent(token) };
  } catch {
    return { kind: 'api_key', value: token };
  }
}
