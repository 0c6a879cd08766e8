import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * When an account's lock ends after its n-th consecutive failure (login-throttle.ts decides): no lock up to
 * `free` failures, `until` of the entry whose `failures` is n, and `otherwise` past the listed counts.
 */
export interface LockSchedule {
  free: number;
  levels: readonly { failures: number; until: string }[];
  otherwise: string;
}

/** The `login_failures` table: consecutive failed password checks and the lock they set, per subject. */
export class LoginFailuresRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** When the subject's lock ends (an ISO time, possibly past), or null when it has none. */
  async lockedUntil(subject: string): Promise<string | null> {
    const row = await this.db.selectFrom('login_failures').select('locked_until').where('subject', '=', subject).executeTakeFirst();
    return row?.locked_until ?? null;
  }

  /**
   * Counts one more failure and sets the lock the schedule gives for the count it produced, in one statement:
   * instances failing the same subject at once each count, and none can write a shorter lock computed from an
   * older count.
   */
  async recordFailure(subject: string, now: string, schedule: LockSchedule): Promise<void> {
    const failures = sql<number>`login_failures.failures + 1`;
    const lockedUntil = sql<string | null>`case when ${failures} <= ${sql.lit(schedule.free)} then null ${sql.join(
      schedule.levels.map((level) => sql`when ${failures} = ${sql.lit(level.failures)} then cast(${level.until} as text)`),
      sql` `,
    )} else cast(${schedule.otherwise} as text) end`;
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
