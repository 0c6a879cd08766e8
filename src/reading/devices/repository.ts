import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { ReadingDevicesTable } from '../../db/tables/reading.js';

export type DeviceRow = Selectable<ReadingDevicesTable> & { api_key_name: string | null };

/** SQL of the user's devices (reading_devices, written by every progress write: reading/progress). */
export class DevicesRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  private select(userId: string) {
    return (
      this.db
        .selectFrom('reading_devices as d')
        // A key device's id is `key:<api key id>`; a revoked key is gone, and the device keeps the name it had.
        .leftJoin('api_keys as k', (join) => join.on(sql<SqlBool>`d.device_id = 'key:' || k.id`).onRef('k.user_id', '=', 'd.user_id'))
        .selectAll('d')
        .select('k.name as api_key_name')
        .where('d.user_id', '=', userId)
    );
  }

  async list(userId: string, offset: number, limit: number): Promise<{ total: number; rows: DeviceRow[] }> {
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('reading_devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
      this.select(userId).orderBy('d.last_seen_at', 'desc').orderBy('d.device_id').offset(offset).limit(limit).execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  get(userId: string, deviceId: string): Promise<DeviceRow | undefined> {
    return this.select(userId).where('d.device_id', '=', deviceId).executeTakeFirst();
  }

  async rename(userId: string, deviceId: string, label: string | null): Promise<void> {
    await this.db.updateTable('reading_devices').set({ label }).where('user_id', '=', userId).where('device_id', '=', deviceId).execute();
  }

  async remove(userId: string, deviceId: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('reading_devices')
      .where('user_id', '=', userId)
      .where('device_id', '=', deviceId)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
