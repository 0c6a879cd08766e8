import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { UsersTable } from '../../db/tables/identity.js';
import { userKey } from '../auth/user-key.js';

export type UserRow = Selectable<UsersTable>;

export { userKey };

export class UsersRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Login accepts the username or the e-mail address, case-insensitively. */
  findByLogin(login: string): Promise<UserRow | undefined> {
    const key = userKey(login);
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb.or([eb('username_key', '=', key), eb('email_key', '=', key)]))
      .executeTakeFirst();
  }

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username_key', '=', userKey(username)).executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email_key', '=', userKey(email)).executeTakeFirst();
  }

  async conflicts(username: string, email: string, exceptId?: string): Promise<{ username: boolean; email: boolean }> {
    let q = this.db
      .selectFrom('users')
      .select(['username_key', 'email_key'])
      .where((eb) => eb.or([eb('username_key', '=', userKey(username)), eb('email_key', '=', userKey(email))]));
    if (exceptId) q = q.where('id', '!=', exceptId);
    const rows = await q.execute();
    return { username: rows.some((r) => r.username_key === userKey(username)), email: rows.some((r) => r.email_key === userKey(email)) };
  }

  async insert(row: UserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  async update(id: string, changes: Partial<Omit<UserRow, 'id'>>): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('users').where('id', '=', id).execute();
  }

  async countAdmins(exceptId?: string): Promise<number> {
    let q = this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .where('disabled', '=', 0);
    if (exceptId) q = q.where('id', '!=', exceptId);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  list(offset: number, limit: number): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('username_key').orderBy('id').offset(offset).limit(limit).execute();
  }
}
