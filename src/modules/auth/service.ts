import { AppError, forbidden } from '../../http/errors.js';
import { newId, nowIso } from '../../db/ids.js';
import type { SettingsService } from '../settings/service.js';
import type { UserRow, UsersRepository } from '../users/repository.js';
import { userKey } from '../users/repository.js';
import { toUserSummary } from '../users/views.js';
import type { Caller } from './caller.js';
import type { EmailTokens } from './email-tokens.js';
import type { LoginThrottle } from './login-throttle.js';
import type { Mailer } from './mailer.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { RevocationsRepository } from './revocations.js';
import type { TokenIssuer } from './tokens.js';

export interface LoginResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string; username: string; email: string; role: string };
}

export interface NewAccount {
  username: string;
  email: string;
  password: string;
}

const INVALID_CREDENTIALS = 'Invalid username or password';
const VERIFY_PURPOSE = 'verify-email';

export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: TokenIssuer,
    private readonly revocations: RevocationsRepository,
    private readonly throttle: LoginThrottle,
    private readonly emailTokens: EmailTokens,
    private readonly mailer: Mailer,
    private readonly settings: SettingsService,
  ) {}

  /** One generic message for every credential failure, so responses never tell which accounts exist. */
  async login(login: string, password: string): Promise<LoginResponse> {
    const lockedFor = await this.throttle.lockedFor(login);
    if (lockedFor > 0) {
      throw new AppError(429, 'rate_limit_exceeded', `Too many failed logins for this account: retry in ${lockedFor} seconds`, null, { 'Retry-After': String(lockedFor) });
    }
    const user = await this.users.findByLogin(login);
    const ok = await verifyPassword(user?.password_hash, password);
    if (!user || !ok || user.disabled) {
      await this.throttle.recordFailure(login);
      throw new AppError(401, 'Unauthorized', INVALID_CREDENTIALS);
    }
    await this.throttle.reset(login);
    if (!user.email_verified && (await this.settings.get('email_verification_required'))) {
      throw new AppError(403, 'EmailNotVerified', 'Verify your e-mail address before logging in (POST /api/v1/auth/resend-verification sends a new link)');
    }
    await this.users.update(user.id, { last_login_at: nowIso() });
    return this.issueFor(user);
  }

  async issueFor(user: UserRow): Promise<LoginResponse> {
    const token = await this.tokens.issue(user.id, user.role);
    return { access_token: token.token, token_type: 'Bearer', expires_in: token.expiresIn, user: toUserSummary(user) };
  }

  /** Revokes the JWT the caller used; with an API key or Basic there is nothing to end (revoke the key instead). */
  async logout(caller: Caller): Promise<void> {
    if (caller.tokenId && caller.tokenExpiresAt) await this.revocations.revoke(caller.tokenId, caller.tokenExpiresAt);
    void this.revocations.purgeExpired().catch(() => undefined);
  }

  /**
   * A signed-in person changes their own password, proving the current one. Only a password session may do
   * this (an API key or Basic credentials are not the person). Wrong current passwords count against the same
   * lock as failed logins, so this is no way around it.
   */
  async changePassword(caller: Caller, currentPassword: string, newPassword: string): Promise<void> {
    if (caller.method !== 'jwt' && caller.method !== 'session') throw forbidden('Sign in with your password to change it; an API key cannot');
    const login = caller.user.username;
    const lockedFor = await this.throttle.lockedFor(login);
    if (lockedFor > 0) {
      throw new AppError(429, 'rate_limit_exceeded', `Too many wrong passwords for this account: retry in ${lockedFor} seconds`, null, { 'Retry-After': String(lockedFor) });
    }
    const user = await this.users.findById(caller.user.id);
    if (!user || !(await verifyPassword(user.password_hash, currentPassword))) {
      await this.throttle.recordFailure(login);
      // 400, not 401: the session itself is fine and must not end because of a typo.
      throw new AppError(400, 'InvalidPassword', 'The current password is not right', { field: 'current_password' });
    }
    await this.throttle.reset(login);
    await this.users.update(user.id, { password_hash: await hashPassword(newPassword), updated_at: nowIso() });
  }

  async register(account: NewAccount, baseUrl: string): Promise<{ user: ReturnType<typeof toUserSummary>; verification_required: boolean }> {
    if (!(await this.settings.get('registration_enabled'))) {
      throw forbidden('Registration is disabled on this server; ask an administrator for an account');
    }
    const verificationRequired = await this.settings.get('email_verification_required');
    const user = await this.createAccount(account, 'reader', [], !verificationRequired);
    if (verificationRequired) await this.sendVerification(user, baseUrl);
    return { user: toUserSummary(user), verification_required: verificationRequired };
  }

  async createAccount(account: NewAccount, role: string, permissions: string[], emailVerified: boolean): Promise<UserRow> {
    const conflicts = await this.users.conflicts(account.username, account.email);
    if (conflicts.username) throw new AppError(409, 'Conflict', 'Username is already taken', { field: 'username' });
    if (conflicts.email) throw new AppError(409, 'Conflict', 'E-mail address is already in use', { field: 'email' });
    const now = nowIso();
    const row: UserRow = {
      id: newId(),
      username: account.username.trim(),
      username_key: userKey(account.username),
      email: account.email.trim(),
      email_key: userKey(account.email),
      password_hash: await hashPassword(account.password),
      role,
      permissions: JSON.stringify(permissions),
      email_verified: emailVerified ? 1 : 0,
      disabled: 0,
      created_at: now,
      updated_at: now,
      last_login_at: null,
    };
    try {
      await this.users.insert(row);
    } catch (err) {
      // Two registrations racing for one name: the unique index decides.
      if (/unique|duplicate/i.test((err as Error).message)) throw new AppError(409, 'Conflict', 'Username or e-mail address is already in use');
      throw err;
    }
    return row;
  }

  async verifyEmail(token: string): Promise<void> {
    const userId = await this.emailTokens.consume(token, VERIFY_PURPOSE);
    if (!userId) throw new AppError(400, 'InvalidToken', 'The verification token is invalid, already used or expired');
    await this.users.update(userId, { email_verified: 1, updated_at: nowIso() });
  }

  /** Always accepted, whatever the address, so the answer reveals nothing about accounts. */
  async resendVerification(email: string, baseUrl: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.email_verified || user.disabled) return;
    await this.sendVerification(user, baseUrl);
  }

  private async sendVerification(user: UserRow, baseUrl: string): Promise<void> {
    const token = await this.emailTokens.create(user.id, VERIFY_PURPOSE);
    const link = `${baseUrl}/verify-email?token=${encodeURIComponent(token)}`;
    await this.mailer.send({
      to: user.email,
      subject: 'Verify your Bindery account',
      text: `Hello ${user.username},\n\nconfirm your e-mail address by opening this link within 24 hours:\n${link}\n\nOr send the token to POST /api/v1/auth/verify-email: ${token}\n`,
    });
  }
}
