import { ApiError } from '../api/client';

const THINGS: Array<[RegExp, string]> = [
  [/^\/books\//, 'Book not found'],
  [/^\/series\//, 'Series not found'],
  [/^\/libraries\//, 'Library not found'],
];

/**
 * The heading for an error that means "nothing at this address": a 404, or a 400 about the address' own id
 * (not a UUID). Null for any other error, which is worth trying again.
 */
export function notFoundTitle(error: unknown, pathname: string): string | null {
  if (!(error instanceof ApiError)) return null;
  const aboutTheAddress = error.status === 404 || (error.status === 400 && /params field/i.test(error.message));
  if (!aboutTheAddress) return null;
  return THINGS.find(([pattern]) => pattern.test(pathname))?.[1] ?? 'Not found';
}
