import type { Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';

/** Logged-out token ids, in the database so a logout holds on every instance; rows go once the token would have expired. */
export class RevocationsRepository {
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

  async purgeExpired(): Promise<void> {
    await this.db.deleteFrom('revoked_tokens').where('expires_at', '<', nowIso()).execute();
  }
}
