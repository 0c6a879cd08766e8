import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** The locked metadata fields of these series or books (catalog/metadata), as `{field: true}` per entity id. */
export async function lockedFields(db: Kysely<DB>, ids: readonly string[]): Promise<Map<string, Record<string, true>>> {
  const out = new Map<string, Record<string, true>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('metadata_locks')
    .select(['entity_id', 'field'])
    .where('entity_id', 'in', [...ids])
    .execute();
  for (const r of rows) out.set(r.entity_id, { ...out.get(r.entity_id), [r.field]: true });
  return out;
}
