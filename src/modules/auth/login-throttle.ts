import type { Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';

/**
 * Slows down password guessing for one account: after FREE_FAILURES failed logins the account name is locked
 * for 2^(n - FREE_FAILURES) seconds, up to 15 minutes, counted in the database so every instance agrees.
 * Keyed by the login name as typed (existing or not), so a lock reveals nothing about which accounts exist.
 * Guessing across many accounts from one address is bounded by the per-IP rate limiter instead, which keeps
 * other users (other addresses) unaffected.
 */
export const FREE_FAILURES = 5;
const MAX_LOCK_SECONDS = 15 * 60;

export class LoginThrottle {
  constructor(private readonly db: Kysely<DB>) {}

  /** Seconds until the next attempt is allowed, or 0. */
  async lockedFor(login: string): Promise<number> {
    const row = await this.db.selectFrom('login_failures').select('locked_until').where('subject', '=', subjectOf(login)).executeTakeFirst();
    if (!row?.locked_until) return 0;
    const ms = Date.parse(row.locked_until) - Date.now();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  async recordFailure(login: string): Promise<void> {
    const subject = subjectOf(login);
    await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('login_failures').select('failures').where('subject', '=', subject).executeTakeFirst();
      const failures = (row?.failures ?? 0) + 1;
      const lockSeconds = failures > FREE_FAILURES ? Math.min(2 ** (failures - FREE_FAILURES), MAX_LOCK_SECONDS) : 0;
      const locked_until = lockSeconds > 0 ? new Date(Date.now() + lockSeconds * 1000).toISOString() : null;
      await trx
        .insertInto('login_failures')
        .values({ subject, failures, locked_until, updated_at: nowIso() })
        .onConflict((oc) => oc.column('subject').doUpdateSet({ failures, locked_until, updated_at: nowIso() }))
        .execute();
    });
  }

  async reset(login: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('subject', '=', subjectOf(login)).execute();
  }
}

const subjectOf = (login: string) => `user:${login.trim().toLowerCase()}`;
