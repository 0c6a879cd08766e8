import { contentAccessColumn, FULL_ACCESS, type ContentAccess } from '../access/content-access.js';
import { AppError, forbidden } from '../../http/errors.js';
import { unlessDiskFull } from '../../db/disk-full.js';
import { newId, nowIso } from '../../db/ids.js';
import { toJsonColumn } from '../../db/json-column.js';
import { toUserSummary, type AuthSettings, type UserAccounts, type UserRow } from './accounts.js';
import { userKey } from './user-key.js';
import type { Caller } from '../access/caller.js';
import type { EmailTokens } from './email-tokens.js';
import type { Mailer } from './mailer.js';
import type { PasswordChecks } from './password-checks.js';
import { hashPassword } from './passwords.js';
import { newSecurityStamp } from './security-stamp.js';
import type { RevocationsRepository } from './revocations-repository.js';
import type { TokenIssuer } from './tokens.js';
import { isLanguage, type Language } from '../../i18n/languages.js';
import { phrase, textIn } from '../../i18n/messages.js';

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

const VERIFY_PURPOSE = 'verify-email';
const REGISTRATION_CONFLICT = phrase(
  'This username or e-mail address cannot be registered; choose another username, or log in if you already have an account',
);

/** Where a mail's link points and the language of the request that caused it. */
export interface ReplyContext {
  baseUrl: string;
  language: Language;
}

export class AuthService {
  constructor(
    private readonly users: UserAccounts,
    private readonly tokens: TokenIssuer,
    private readonly revocations: RevocationsRepository,
    private readonly passwords: PasswordChecks,
    private readonly emailTokens: EmailTokens,
    private readonly mailer: Mailer,
    private readonly settings: AuthSettings,
    /** The interface language a user chose (preference `language`), so mail to them is in it. */
    private readonly chosenLanguage: (userId: string) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** Wrong credentials answer one generic 401, so responses never tell which accounts exist. */
  async login(login: string, password: string): Promise<LoginResponse> {
    const user = await this.passwords.verify(login, password);
    // Administrators keep their password, so turning it off can never lock the last one out (docs/sign-in.md).
    if (user.role !== 'admin' && (await this.settings.get('password_sign_in_disabled'))) {
      throw new AppError(
        403,
        'PasswordSignInDisabled',
        'Password sign-in is turned off on this server: use a "Sign in with" button. Apps (OPDS, KOReader, Komga) sign in with an API key.',
      );
    }
    if (!user.email_verified && (await this.settings.get('email_verification_required'))) {
      throw new AppError(
        403,
        'EmailNotVerified',
        'Verify your e-mail address before logging in (POST /api/v1/auth/resend-verification sends a new link)',
      );
    }
    // Bookkeeping: on a full disk the login still succeeds, unrecorded.
    await unlessDiskFull(this.users.update(user.id, { last_login_at: nowIso() }));
    return this.issueFor(user);
  }

  async issueFor(user: UserRow): Promise<LoginResponse> {
    const token = await this.tokens.issue(user.id, user.role, user.security_stamp);
    return { access_token: token.token, token_type: 'Bearer', expires_in: token.expiresIn, user: toUserSummary(user) };
  }

  /** Revokes the JWT the caller used; with an API key or Basic there is nothing to end (revoke the key instead). */
  async logout(caller: Caller): Promise<void> {
    if (caller.tokenId && caller.tokenExpiresAt) await this.revocations.revoke(caller.tokenId, caller.tokenExpiresAt);
    void this.revocations.purgeExpired().catch(() => undefined);
  }

  /**
   * Sign out everywhere: a new security stamp ends every JWT and Komga session of the caller's account, the
   * one used for this request included. API keys and Basic credentials are not sessions and keep working.
   */
  async logoutEverywhere(caller: Caller): Promise<void> {
    // Ending every session is a decision of the signed-in person: a key (a device key with only pages-read)
    // would otherwise be able to sign its owner out of every device.
    if (caller.apiKeyId !== null) throw forbidden('Sign out everywhere needs a signed-in user, not an API key');
    await this.users.update(caller.user.id, { security_stamp: newSecurityStamp(), updated_at: nowIso() });
  }

  /** Ends one Komga session (its id is refused from now on, on every instance). `until`: when it would expire anyway. */
  async endSession(sessionId: string, until: Date): Promise<void> {
    await this.revocations.revoke(sessionId, until);
    void this.revocations.purgeExpired().catch(() => undefined);
  }

  async register(
    account: NewAccount,
    reply: ReplyContext,
  ): Promise<{ user: ReturnType<typeof toUserSummary>; verification_required: boolean }> {
    if (!(await this.settings.get('registration_enabled'))) {
      throw forbidden('Registration is disabled on this server; ask an administrator for an account');
    }
    const conflicts = await this.users.conflicts(account.username, account.email);
    if (conflicts.username || conflicts.email) {
      // One answer for a taken name and a taken address (after the same hashing work as a success), so
      // registration cannot tell which accounts exist; the owner of the address is told of the attempt.
      await hashPassword(account.password);
      if (conflicts.email) await this.sendRegistrationNotice(account.email, reply);
      throw new AppError(409, 'Conflict', REGISTRATION_CONFLICT);
    }
    const verificationRequired = await this.settings.get('email_verification_required');
    const user = await this.createAccount(account, 'reader', [], !verificationRequired).catch((err: unknown) => {
      throw err instanceof AppError && err.statusCode === 409 ? new AppError(409, 'Conflict', REGISTRATION_CONFLICT) : err;
    });
    // The account exists now: a mail server that is down must not make the answer a failure (a retry would be
    // 409). The mailer logs the mail; `resend-verification` sends it again.
    if (verificationRequired) await this.sendVerification(user, reply).catch(() => undefined);
    return { user: toUserSummary(user), verification_required: verificationRequired };
  }

  /** What a new account sees when nobody said: every library, or none, as the server setting says. */
  async newAccountAccess(): Promise<ContentAccess> {
    return (await this.settings.get('new_users_see_all_libraries')) ? FULL_ACCESS : { ...FULL_ACCESS, libraryIds: [] };
  }

  /** `access`: what the account may see; by default newAccountAccess. */
  async createAccount(
    account: NewAccount,
    role: string,
    permissions: string[],
    emailVerified: boolean,
    access?: ContentAccess,
  ): Promise<UserRow> {
    const conflicts = await this.users.conflicts(account.username, account.email);
    if (conflicts.username) throw new AppError(409, 'Conflict', 'Username is already taken', { field: 'username' });
    if (conflicts.email) throw new AppError(409, 'Conflict', 'E-mail address is already in use', { field: 'email' });
    access ??= await this.newAccountAccess();
    const now = nowIso();
    const row: UserRow = {
      id: newId(),
      username: account.username.trim(),
      username_key: userKey(account.username),
      email: account.email.trim(),
      email_key: userKey(account.email),
      password_hash: await hashPassword(account.password),
      role,
      permissions: toJsonColumn(permissions),
      email_verified: emailVerified ? 1 : 0,
      disabled: 0,
      created_at: now,
      updated_at: now,
      last_login_at: null,
      security_stamp: newSecurityStamp(),
      content_access: contentAccessColumn(access),
    };
    try {
      await this.users.insert(row);
    } catch (err) {
      // Two registrations racing for one name: the unique index decides.
      if (/unique|duplicate/i.test((err as Error).message))
        throw new AppError(409, 'Conflict', 'Username or e-mail address is already in use');
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
  async resendVerification(email: string, reply: ReplyContext): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.email_verified || user.disabled) return;
    await this.sendVerification(user, reply);
  }

  /** A mail's language: the one its recipient chose, else the one the request that caused it asked for. */
  private async languageFor(user: UserRow, reply: ReplyContext): Promise<Language> {
    const chosen = await this.chosenLanguage(user.id).catch(() => undefined);
    return isLanguage(chosen) ? chosen : reply.language;
  }

  /** Best-effort: a mail server that is down must not turn the answer into a different one. */
  private async sendRegistrationNotice(email: string, reply: ReplyContext): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || user.disabled) return;
    const language = await this.languageFor(user, reply);
    await this.mailer
      .send({
        to: user.email,
        subject: textIn(language, 'Someone tried to register with your e-mail address'),
        text: textIn(
          language,
          'Hello {0},\n\nsomeone tried to create a new Colophon account with this e-mail address, which already belongs to your account.\nIf it was you, log in at {1} instead. If it was not, you can ignore this message.\n',
          [user.username, reply.baseUrl],
        ),
      })
      .catch(() => undefined);
  }

  private async sendVerification(user: UserRow, reply: ReplyContext): Promise<void> {
    const token = await this.emailTokens.create(user.id, VERIFY_PURPOSE);
    const link = `${reply.baseUrl}/verify-email?token=${encodeURIComponent(token)}`;
    const language = await this.languageFor(user, reply);
    await this.mailer.send({
      to: user.email,
      subject: textIn(language, 'Verify your Colophon account'),
      text: textIn(
        language,
        'Hello {0},\n\nconfirm your e-mail address by opening this link within 24 hours:\n{1}\n\nOr send the token to POST /api/v1/auth/verify-email: {2}\n',
        [user.username, link, token],
      ),
    });
  }
}
