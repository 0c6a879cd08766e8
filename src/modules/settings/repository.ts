import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';

export interface StoredSetting {
  key: string;
  value: unknown;
  updated_at: string;
  updated_by: string | null;
}

export class SettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async all(): Promise<StoredSetting[]> {
    const rows = await this.db.selectFrom('settings').selectAll().execute();
    return rows.map((r) => ({ ...r, value: JSON.parse(r.value) as unknown }));
  }

  async find(key: string): Promise<StoredSetting | undefined> {
    const row = await this.db.selectFrom('settings').selectAll().where('key', '=', key).executeTakeFirst();
    return row && { ...row, value: JSON.parse(row.value) as unknown };
  }

  /** Writes the value (or removes it when `value` is undefined: back to the default) and its history entry in one transaction. */
  async write(key: string, value: unknown, actorId: string | null): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const old = await trx.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
      const now = nowIso();
      const encoded = value === undefined ? null : JSON.stringify(value);
      if (encoded === null) await trx.deleteFrom('settings').where('key', '=', key).execute();
      else
        await trx
          .insertInto('settings')
          .values({ key, value: encoded, updated_at: now, updated_by: actorId })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: encoded, updated_at: now, updated_by: actorId }))
          .execute();
      await trx
        .insertInto('settings_history')
        .values({ id: newId(), key, old_value: old?.value ?? null, new_value: encoded, changed_by: actorId, changed_at: now })
        .execute();
    });
  }

  /** Claims a one-time marker; false when it was already claimed (the primary key makes it race-free on both engines). */
  async claimMarker(key: string): Promise<boolean> {
    const result = await this.db
      .insertInto('settings')
      .values({ key, value: 'true', updated_at: nowIso(), updated_by: null })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async releaseMarker(key: string): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', key).execute();
  }
}
