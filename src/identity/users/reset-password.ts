import { randomBytes } from 'node:crypto';
import { nowIso } from '../../db/ids.js';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../auth/passwords.js';
import { newSecurityStamp } from '../auth/security-stamp.js';
import type { UsersRepository } from './repository.js';

export interface ResetResult {
  username: string;
  role: string;
  /** The new password (the one given, or a generated one to print). */
  password: string;
}

/**
 * The recovery path of `colophon users reset-password` (docs/sign-in.md): a new password for the account, which is
 * also enabled again and signed out everywhere (a new security stamp). It runs on the server's own database, so
 * whoever runs it is already trusted with everything.
 */
export async function resetPassword(
  users: Pick<UsersRepository, 'findByLogin' | 'update'>,
  login: string,
  password: string | undefined,
): Promise<ResetResult> {
  const user = await users.findByLogin(login);
  if (!user) throw new Error(`no account has the username or e-mail address "${login}"`);
  const chosen = password ?? randomBytes(12).toString('base64url');
  if (chosen.length < MIN_PASSWORD_LENGTH) throw new Error(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  await users.update(user.id, {
    password_hash: await hashPassword(chosen),
    disabled: 0,
    security_stamp: newSecurityStamp(),
    updated_at: nowIso(),
  });
  return { username: user.username, role: user.role, password: chosen };
}
