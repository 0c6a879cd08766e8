import { badRequest } from '../../http/errors.js';

export type SortDirection = 'asc' | 'desc';

export interface Sort<F extends string> {
  field: F;
  direction: SortDirection;
}

/**
 * Reads `sort=field,direction` (direction `asc` or `desc`, default `asc`, or from `order` when given
 * separately). Only fields of the allow-list are accepted: an unknown one is a 400 naming it.
 */
export function parseSort<F extends string>(
  raw: string | undefined,
  order: SortDirection | undefined,
  allowed: readonly F[],
): Sort<F> | null {
  if (raw === undefined || raw.trim() === '') return null;
  const [fieldPart = '', directionPart] = raw.split(',', 2).map((s) => s.trim());
  if (!(allowed as readonly string[]).includes(fieldPart)) {
    throw badRequest(`Unknown sort field "${fieldPart}"; allowed: ${allowed.join(', ')}`, { field: fieldPart, allowed });
  }
  const direction = (directionPart || order || 'asc').toLowerCase();
  if (direction !== 'asc' && direction !== 'desc')
    throw badRequest(`Unknown sort direction "${directionPart}"; use asc or desc`, { direction: directionPart });
  return { field: fieldPart as F, direction };
}
