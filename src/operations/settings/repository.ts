import type { Kysely, Transaction } from 'kysely';
import { newId, nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';
import { parseJsonColumnOrThrow, toJsonColumn } from '../../db/json-column.js';

export interface StoredSetting {
  key: string;
  value: unknown;
  updated_at: string;
  updated_by: string | null;
}

export interface HistoryRow {
  id: string;
  key: string;
  old_value: string | null;
  new_value: string | null;
  changed_by: string | null;
  changed_at: string;
  username: string | null;
}

async function writeOne(trx: Transaction<DB>, key: string, value: unknown, actorId: string | null): Promise<void> {
  const old = await trx.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  const now = nowIso();
  const encoded = value === undefined ? null : toJsonColumn(value);
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
}

export class SettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async all(): Promise<StoredSetting[]> {
    const rows = await this.db.selectFrom('settings').selectAll().execute();
    return rows.map((r) => ({ ...r, value: parseJsonColumnOrThrow<unknown>(r.value) }));
  }

  async find(key: string): Promise<StoredSetting | undefined> {
    const row = await this.db.selectFrom('settings').selectAll().where('key', '=', key).executeTakeFirst();
    return row && { ...row, value: parseJsonColumnOrThrow<unknown>(row.value) };
  }

  /** Writes the value (or removes it when `value` is undefined: back to the default) and its history entry in one transaction. */
  async write(key: string, value: unknown, actorId: string | null): Promise<void> {
    await this.writeMany([[key, value]], actorId);
  }

  /** All or nothing: a bulk update never leaves half of its values applied. */
  async writeMany(entries: Array<[string, unknown]>, actorId: string | null): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const [key, value] of entries) await writeOne(trx, key, value, actorId);
    });
  }

  async history(key: string, offset: number, limit: number): Promise<{ rows: HistoryRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('settings_history as h')
        .leftJoin('users as u', 'u.id', 'h.changed_by')
        .select(['h.id', 'h.key', 'h.old_value', 'h.new_value', 'h.changed_by', 'h.changed_at', 'u.username'])
        .where('h.key', '=', key)
        .orderBy('h.changed_at', 'desc')
        .orderBy('h.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('settings_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('key', '=', key)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
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
