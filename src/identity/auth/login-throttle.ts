import { nowIso } from '../../db/ids.js';
import type { LockSchedule, LoginFailuresRepository } from './login-failures-repository.js';
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
  constructor(private readonly repo: LoginFailuresRepository) {}

  /** Seconds until the next attempt is allowed, or 0. */
  async lockedFor(subject: string): Promise<number> {
    const lockedUntil = await this.repo.lockedUntil(subject);
    if (!lockedUntil) return 0;
    const ms = Date.parse(lockedUntil) - Date.now();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  async recordFailure(subject: string): Promise<void> {
    const now = nowIso();
    // The repository counts the failure and sets the lock from the count it produced, in one statement. The lock
    // ends of every possible count are few (the doubling reaches the cap quickly), so they are listed.
    const lockEnd = (n: number) => new Date(Date.now() + lockSecondsAfter(n) * 1000).toISOString();
    const cappedFrom = FREE_FAILURES + Math.ceil(Math.log2(MAX_LOCK_SECONDS));
    const levels = Array.from({ length: cappedFrom - FREE_FAILURES - 1 }, (_, i) => FREE_FAILURES + 1 + i);
    const schedule: LockSchedule = {
      free: FREE_FAILURES,
      levels: levels.map((n) => ({ failures: n, until: lockEnd(n) })),
      otherwise: lockEnd(cappedFrom),
    };
    await this.repo.recordFailure(subject, now, schedule);
  }

  async reset(subject: string): Promise<void> {
    await this.repo.reset(subject);
  }
}
