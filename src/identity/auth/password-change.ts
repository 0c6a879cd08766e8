import { z } from 'zod';
import { nowIso } from '../../db/ids.js';
import { AppError, ErrorBody, notFound } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import type { UserAccounts } from './accounts.js';
import type { Caller } from '../access/caller.js';
import { callerOf } from './hooks.js';
import type { PasswordChecks } from './password-checks.js';
import { hashPassword } from './passwords.js';
import { newSecurityStamp } from './security-stamp.js';
import { Password } from './schemas.js';

/**
 * A signed-in user changes their own password (the web app's account page). The current password is asked
 * again, so a session left open on a shared screen cannot lock its owner out; API keys cannot do it.
 */
export class PasswordChangeService {
  constructor(
    private readonly users: UserAccounts,
    private readonly passwords: PasswordChecks,
  ) {}

  /**
   * The current password goes through the account lockout like every other password check (a stolen session
   * cannot guess it without limit); the new one changes the security stamp, which ends every session of the
   * account, this one included: the person signs in again with the new password.
   */
  async change(caller: Caller, currentPassword: string, newPassword: string): Promise<void> {
    if (caller.apiKeyId !== null)
      throw new AppError(403, 'Forbidden', 'An API key cannot change its owner’s password: sign in with the password');
    const user = await this.users.findById(caller.user.id);
    if (!user) throw notFound('User');
    await this.passwords.verify(user.username, currentPassword).catch((err: unknown) => {
      // A 401 would read as "your session ended" to clients; the session is fine, the password typed is not.
      if (err instanceof AppError && err.statusCode === 401)
        throw new AppError(400, 'BadRequest', 'The current password is not correct', { field: 'current_password' });
      throw err;
    });
    await this.users.update(user.id, {
      password_hash: await hashPassword(newPassword),
      security_stamp: newSecurityStamp(),
      updated_at: nowIso(),
    });
  }
}

const PasswordChangeBody = z
  .object({
    current_password: z.string().min(1).max(1024),
    new_password: Password,
  })
  .meta({ id: 'PasswordChange' });

export function registerPasswordChangeRoutes(app: App, service: PasswordChangeService): void {
  app.route({
    method: 'POST',
    url: '/auth/change-password',
    schema: {
      summary: 'Change your own password',
      description:
        'Needs the current password (400 when it is wrong; wrong guesses count toward the account lockout, 429). Not allowed with an API key (403). Answers 204 and ends every session of the account, this one included (sign in again with the new password).',
      tags: ['auth'],
      body: PasswordChangeBody,
      response: { 204: z.null().describe('Changed'), 400: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    },
    handler: async (req, reply) => {
      await service.change(callerOf(req), req.body.current_password, req.body.new_password);
      return reply.code(204).send(null);
    },
  });
}
