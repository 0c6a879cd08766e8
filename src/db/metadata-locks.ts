import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * The fields of these series or books a person locked (catalog/metadata), as `{field: true}` per entity id. A
 * provider's values are held too (scans keep them) but are not a person's locks: fieldSources lists them.
 */
export async function lockedFields(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, Record<string, true>>> {
  const out = new Map<string, Record<string, true>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('metadata_locks')
    .select(['entity_id', 'field'])
    .where('entity_id', 'in', [...ids])
    .where('held_by', '=', 'person')
    .execute();
  for (const r of rows) out.set(r.entity_id, { ...out.get(r.entity_id), [r.field]: true });
  return out;
}

/** The fields of these entities a provider's values hold, with where they came from in words. */
export async function fieldSources(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('metadata_locks')
    .select(['entity_id', 'field', 'source'])
    .where('entity_id', 'in', [...ids])
    .where('held_by', '=', 'provider')
    .execute();
  for (const r of rows) out.set(r.entity_id, { ...out.get(r.entity_id), [r.field]: r.source ?? 'an online database' });
  return out;
}
