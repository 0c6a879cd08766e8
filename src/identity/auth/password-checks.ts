import { unlessDiskFull } from '../../db/disk-full.js';
import { AppError } from '../../http/errors.js';
import type { UserAccounts, UserRow } from './accounts.js';
import { accountSubject, unknownNameSubject, type LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import { phrase } from '../../i18n/messages.js';

/** One generic message for every credential failure, so responses never tell which accounts exist. */
export const INVALID_CREDENTIALS = phrase('Invalid username or password');

const tooManyFailures = (seconds: number) =>
  new AppError(
    429,
    'rate_limit_exceeded',
    `Too many failed logins for this account: retry in ${seconds} seconds`,
    null,
    { 'Retry-After': String(seconds) },
    { retry_after: seconds },
  );

/**
 * Every check of a password against an account, under the account lockout (login-throttle.ts): the login
 * endpoint and Basic credentials on any route go through here, so a guess counts (and a lock holds) wherever
 * the password is sent. Checks of one account run one at a time on this instance: a burst of parallel guesses
 * cannot all be verified before the first failures are counted.
 */
export class PasswordChecks {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly users: UserAccounts,
    private readonly throttle: LoginThrottle,
  ) {}

  /** The account the name (username or e-mail) and password open; 429 while it is locked, 401 otherwise. */
  async verify(login: string, password: string): Promise<UserRow> {
    const user = await this.users.findByLogin(login);
    const subject = user ? accountSubject(user.id) : unknownNameSubject(login);
    return this.oneAtATime(subject, async () => {
      await this.refuseWhileLocked(subject);
      const ok = await verifyPassword(user?.password_hash, password);
      if (!user || !ok || user.disabled) {
        // Bookkeeping is best-effort on a full disk: a login must keep working while writes are refused.
        await unlessDiskFull(this.throttle.recordFailure(subject));
        throw new AppError(401, 'Unauthorized', INVALID_CREDENTIALS);
      }
      await unlessDiskFull(this.throttle.reset(subject));
      return user;
    });
  }

  /** For a password verified earlier (the Basic cache): a locked account stays locked for it too. */
  async ensureUnlocked(userId: string): Promise<void> {
    await this.refuseWhileLocked(accountSubject(userId));
  }

  private async refuseWhileLocked(subject: string): Promise<void> {
    const seconds = await this.throttle.lockedFor(subject);
    if (seconds > 0) throw tooManyFailures(seconds);
  }

  private async oneAtATime<T>(subject: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(subject) ?? Promise.resolve();
    const run = previous.then(work);
    const settled = run.catch(() => undefined);
    this.queues.set(subject, settled);
    try {
      return await run;
    } finally {
      if (this.queues.get(subject) === settled) this.queues.delete(subject);
    }
  }
}
