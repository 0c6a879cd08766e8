import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';

const LIFETIME_MS = 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Random single-use tokens, stored hashed, valid for 24 hours. */
export class EmailTokens {
  constructor(private readonly db: Kysely<DB>) {}

  async create(userId: string, purpose: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db
      .insertInto('email_tokens')
      .values({
        token_hash: hashToken(token),
        user_id: userId,
        purpose,
        expires_at: new Date(Date.now() + LIFETIME_MS).toISOString(),
        used_at: null,
        created_at: nowIso(),
      })
      .execute();
    return token;
  }

  /** Marks the token used and returns its user, or undefined when unknown, used or expired. */
  async consume(token: string, purpose: string): Promise<string | undefined> {
    const now = nowIso();
    const hash = hashToken(token);
    const result = await this.db
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.db.selectFrom('email_tokens').select('user_id').where('token_hash', '=', hash).executeTakeFirst();
    return row?.user_id;
  }
}
