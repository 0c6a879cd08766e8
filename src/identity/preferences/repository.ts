import type { Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';
import { parseJsonColumnOrThrow, toJsonColumn } from '../../db/json-column.js';

export class PreferencesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async all(userId: string): Promise<Map<string, { value: unknown; updated_at: string }>> {
    const rows = await this.db
      .selectFrom('user_preferences')
      .select(['key', 'value', 'updated_at'])
      .where('user_id', '=', userId)
      .execute();
    return new Map(rows.map((r) => [r.key, { value: parseJsonColumnOrThrow<unknown>(r.value), updated_at: r.updated_at }]));
  }

  async set(userId: string, key: string, value: unknown): Promise<void> {
    const encoded = toJsonColumn(value);
    const now = nowIso();
    await this.db
      .insertInto('user_preferences')
      .values({ user_id: userId, key, value: encoded, updated_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({ value: encoded, updated_at: now }))
      .execute();
  }

  async remove(userId: string, key: string): Promise<void> {
    await this.db.deleteFrom('user_preferences').where('user_id', '=', userId).where('key', '=', key).execute();
  }
}
