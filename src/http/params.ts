import { z } from 'zod';

/** A UUID path parameter: a malformed id is a 400 before any lookup happens. */
export const Uuid = z.uuid({ message: 'must be a UUID' });

export const IdParams = z.object({ id: Uuid });
export type IdParams = z.infer<typeof IdParams>;
