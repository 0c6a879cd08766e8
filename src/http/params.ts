import { z } from 'zod';

/**
 * A UUID path parameter: a malformed id is a 400 before any lookup happens. UUIDs are case-insensitive and ours
 * are stored in lower case; an id written in upper case (Swift's `uuidString`, .NET's "B" format) is the same id.
 */
export const Uuid = z.uuid({ message: 'must be a UUID' }).toLowerCase();

export const IdParams = z.object({ id: Uuid });
export type IdParams = z.infer<typeof IdParams>;

/**
 * A page number in a path: decimal digits only. `Number()` would also take `0x1`, `1e3` or a blank (page 0), so
 * a mistyped URL would quietly name another page.
 */
export const PageNumberParam = z
  .string()
  .regex(/^-?[0-9]{1,9}$/, 'must be a whole number written in digits')
  .transform(Number);
