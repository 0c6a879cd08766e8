import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The `email_tokens` table: single-use tokens by their hash (email-tokens.ts makes and checks them). */
export class EmailTokensRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(row: { tokenHash: string; userId: string; purpose: string; expiresAt: string; createdAt: string }): Promise<void> {
    await this.db
      .insertInto('email_tokens')
      .values({
        token_hash: row.tokenHash,
        user_id: row.userId,
        purpose: row.purpose,
        expires_at: row.expiresAt,
        used_at: null,
        created_at: row.createdAt,
      })
      .execute();
  }

  /**
   * Marks the token used at `now` when it has that purpose, is unused and has not expired by `now`, and returns
   * its user; undefined (nothing changed) otherwise. Two requests with the same token: only one marks it.
   */
  async consume(tokenHash: string, purpose: string, now: string): Promise<string | undefined> {
    const result = await this.db
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.db.selectFrom('email_tokens').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirst();
    return row?.user_id;
  }
}
