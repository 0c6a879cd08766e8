import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ApiKeysTable } from '../../db/tables/identity.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export class ApiKeysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findByPrefix(prefix: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_prefix', '=', prefix).executeTakeFirst();
  }

  findOwned(userId: string, id: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  }

  async listOwned(userId: string, offset: number, limit: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('api_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async insert(row: ApiKeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  async update(id: string, changes: Partial<Pick<ApiKeyRow, 'name' | 'permissions' | 'expires_at'>>): Promise<void> {
    if (Object.keys(changes).length === 0) return; // nothing to change (an empty PATCH): no `SET` to write
    await this.db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('api_keys').where('id', '=', id).execute();
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
