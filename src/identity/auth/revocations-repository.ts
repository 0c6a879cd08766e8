import { CompiledQuery, type Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';
import type { UserRow } from './accounts.js';

/** Logged-out token ids, in the database so a logout holds on every instance; rows go once the token would have expired. */
export class RevocationsRepository {
  private tokenUserSql: { sql: string; jtiFirst: boolean } | undefined;

  constructor(private readonly db: Kysely<DB>) {}

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('revoked_tokens')
      .values({ jti, expires_at: expiresAt.toISOString() })
      .onConflict((oc) => oc.column('jti').doNothing())
      .execute();
  }

  async isRevoked(jti: string): Promise<boolean> {
    const row = await this.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * A token's user and whether the token is revoked, in one query: a bearer's every request (a reader turning
   * pages) asks both, and on PostgreSQL each query is a round trip. Nothing is cached, so a logout, a deletion
   * or a demotion on any instance holds on the very next request. `user` is undefined when there is no such user
   * (then `revoked` is asked on its own, so the refusal names the logout first, as it would have).
   */
  async tokenUser(jti: string, userId: string): Promise<{ revoked: boolean; user: UserRow | undefined }> {
    // Built and compiled by Kysely once, then run with the values (on PostgreSQL this runs on every request, and
    // building the query cost more of our CPU than the round trip).
    this.tokenUserSql ??= this.compileTokenUser();
    const { sql, jtiFirst } = this.tokenUserSql;
    const { rows } = await this.db.executeQuery<UserRow & { token_revoked: unknown }>(
      CompiledQuery.raw(sql, jtiFirst ? [jti, userId] : [userId, jti]),
    );
    const row = rows[0];
    if (!row) return { revoked: await this.isRevoked(jti), user: undefined };
    const { token_revoked, ...user } = row;
    return { revoked: Boolean(token_revoked), user };
  }

  private compileTokenUser(): { sql: string; jtiFirst: boolean } {
    const [jti, user] = ['\0jti', '\0user'];
    const compiled = this.db
      .selectFrom('users')
      .selectAll('users')
      .select((eb) => eb.exists(eb.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti)).as('token_revoked'))
      .where('users.id', '=', user)
      .compile();
    const [first, second, ...rest] = compiled.parameters;
    if (rest.length > 0 || !((first === jti && second === user) || (first === user && second === jti)))
      throw new Error(`unexpected parameters of ${compiled.sql}`);
    return { sql: compiled.sql, jtiFirst: first === jti };
  }

  async purgeExpired(): Promise<void> {
    await this.db.deleteFrom('revoked_tokens').where('expires_at', '<', nowIso()).execute();
  }
}
