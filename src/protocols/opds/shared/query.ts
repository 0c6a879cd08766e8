import type { FastifyRequest } from 'fastify';

/** An OpenSearch / URI template parameter the client left as it was: `{startPage?}`, `{maxWidth}`. */
const UNFILLED_TEMPLATE = /^\{[^{}]*\}$/;

const isAbsent = (value: unknown) => value === '' || (typeof value === 'string' && UNFILLED_TEMPLATE.test(value));

/**
 * Drops query parameters that are empty or an unfilled template before validation, so they count as absent.
 * OpenSearch 1.1 lets a client send an optional parameter as the empty string, and KOReader fills only
 * `{searchTerms}` of the first template, sending `page={startPage?}` as it is; neither is a bad page number.
 * Every feed parameter is optional, so nothing a feed requires can be dropped.
 */
export function dropUnfilledQueryParameters(req: FastifyRequest): void {
  const query = req.query as Record<string, unknown> | undefined;
  if (!query || typeof query !== 'object') return;
  let cleaned: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(query)) {
    const kept = Array.isArray(value) ? value.filter((v) => !isAbsent(v)) : value;
    const absent = Array.isArray(kept) ? kept.length === 0 : isAbsent(kept);
    if (!absent && kept === value) continue;
    cleaned ??= { ...query };
    if (absent) delete cleaned[key];
    else cleaned[key] = Array.isArray(kept) && kept.length === 1 ? kept[0] : kept;
  }
  if (cleaned) req.query = cleaned;
}
