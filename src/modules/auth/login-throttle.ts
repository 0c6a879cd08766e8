import { sql, type Kysely } from 'kysely';
import { nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';
import { userKey } from './user-key.js';

/**
 * Slows down password guessing for one account: after FREE_FAILURES failed password checks the account is
 * locked for 2^(n - FREE_FAILURES) seconds, up to 15 minutes, counted in the database so every instance agrees.
 * Every password check counts, wherever the password was sent (login, Basic on the API, OPDS or the Komga API).
 * The lock belongs to the account (`account:<user id>`), so its username and its e-mail address share it; a
 * name that matches no account locks the same way under the name as typed (`user:<name>`), so a lock alone does
 * not tell whether an account exists. Guessing across many accounts from one address is bounded by the per-IP
 * rate limiter instead, which keeps other users (other addresses) unaffected.
 */
export const FREE_FAILURES = 5;
const MAX_LOCK_SECONDS = 15 * 60;

/** The lock after the n-th consecutive failure: none for the free ones, then doubling up to the cap. */
function lockSecondsAfter(failures: number): number {
  return failures <= FREE_FAILURES ? 0 : Math.min(2 ** (failures - FREE_FAILURES), MAX_LOCK_SECONDS);
}

export const accountSubject = (userId: string): string => `account:${userId}`;
export const unknownNameSubject = (login: string): string => `user:${userKey(login)}`;

export class LoginThrottle {
  constructor(private readonly db: Kysely<DB>) {}

  /** Seconds until the next attempt is allowed, or 0. */
  async lockedFor(subject: string): Promise<number> {
    const row = await this.db.selectFrom('login_failures').select('locked_until').where('subject', '=', subject).executeTakeFirst();
    if (!row?.locked_until) return 0;
    const ms = Date.parse(row.locked_until) - Date.now();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  async recordFailure(subject: string): Promise<void> {
    const now = nowIso();
    // One statement counts the failure and sets the lock from the count it produced: instances failing the same
    // account at once each count, and none can write a shorter lock computed from an older count. The lock ends
    // of every possible count are few (the doubling reaches the cap quickly), so they are listed as parameters.
    const failures = sql<number>`login_failures.failures + 1`;
    const lockEnd = (n: number) => new Date(Date.now() + lockSecondsAfter(n) * 1000).toISOString();
    const cappedFrom = FREE_FAILURES + Math.ceil(Math.log2(MAX_LOCK_SECONDS));
    const levels = Array.from({ length: cappedFrom - FREE_FAILURES - 1 }, (_, i) => FREE_FAILURES + 1 + i);
    const lockedUntil = sql<string | null>`case when ${failures} <= ${sql.lit(FREE_FAILURES)} then null ${sql.join(
      levels.map((n) => sql`when ${failures} = ${sql.lit(n)} then cast(${lockEnd(n)} as text)`),
      sql` `,
    )} else cast(${lockEnd(cappedFrom)} as text) end`;
    await this.db
      .insertInto('login_failures')
      .values({ subject, failures: 1, locked_until: null, updated_at: now })
      .onConflict((oc) => oc.column('subject').doUpdateSet({ failures, locked_until: lockedUntil, updated_at: now }))
      .execute();
  }

  async reset(subject: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('subject', '=', subject).execute();
  }
}
