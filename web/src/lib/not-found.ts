import { ApiError } from '../api/client';

const THINGS: Array<[RegExp, string]> = [
  [/^\/books\//, 'Book not found'],
  [/^\/series\//, 'Series not found'],
  [/^\/libraries\//, 'Library not found'],
  [/^\/shelves\//, 'Shelf not found'],
];

/** Thrown by the app itself for an address that names nothing (a shelf that does not exist). */
export class AddressNotFound extends Error {}

/**
 * The heading for an error that means "nothing at this address": a 404, or a 400 about the address' own id
 * (not a UUID). Null for any other error, which is worth trying again.
 */
export function notFoundTitle(error: unknown, pathname: string): string | null {
  const aboutTheAddress =
    // The router hands a route's parameter error over wrapped, with the thrown one as its cause.
    error instanceof AddressNotFound ||
    (error instanceof Error && error.cause instanceof AddressNotFound) ||
    (error instanceof ApiError && (error.status === 404 || (error.status === 400 && /params field/i.test(error.message))));
  if (!aboutTheAddress) return null;
  return THINGS.find(([pattern]) => pattern.test(pathname))?.[1] ?? 'Not found';
}
