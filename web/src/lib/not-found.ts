import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { ApiError } from '../api/client';

const THINGS: Array<[RegExp, MessageDescriptor]> = [
  [/^\/books\//, msg`Book not found`],
  [/^\/series\//, msg`Series not found`],
  [/^\/libraries\//, msg`Library not found`],
  [/^\/shelves\//, msg`Shelf not found`],
];

/** Thrown by the app itself for an address that names nothing (a shelf that does not exist). */
export class AddressNotFound extends Error {}

/**
 * The heading for an error that means "nothing at this address": a 404, or a 400 about the address' own id
 * (not a UUID), in the active language. Null for any other error, which is worth trying again.
 */
export function notFoundTitle(error: unknown, pathname: string): string | null {
  const aboutTheAddress =
    // The router hands a route's parameter error over wrapped, with the thrown one as its cause.
    error instanceof AddressNotFound ||
    (error instanceof Error && error.cause instanceof AddressNotFound) ||
    (error instanceof ApiError && (error.status === 404 || (error.status === 400 && /params field/i.test(error.message))));
  if (!aboutTheAddress) return null;
  return i18n._(THINGS.find(([pattern]) => pattern.test(pathname))?.[1] ?? msg`Not found`);
}
