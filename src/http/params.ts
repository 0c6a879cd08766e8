import { z } from 'zod';

/**
 * A UUID path parameter: a malformed id is a 400 before any lookup happens. UUIDs are case-insensitive and ours
 * are stored in lower case; an id written in upper case (Swift's `uuidString`, .NET's "B" format) is the same id.
 */
export const Uuid = z.uuid({ message: 'must be a UUID' }).toLowerCase();

export const IdParams = z.object({ id: Uuid });
export type IdParams = z.infer<typeof IdParams>;
