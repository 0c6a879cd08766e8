import { createHash } from 'node:crypto';
import { AppError } from '../../http/errors.js';
import { looksLikeApiKey, parseApiKey, secretMatches } from './api-key-format.js';
import type { ApiKeyLookup, ApiKeyRow, UserAccounts, UserRow } from './accounts.js';
import type { Caller } from '../access/caller.js';
import type { PasswordChecks } from './password-checks.js';
import { keyPermissions, userPermissions } from '../access/permissions.js';
import { scopeOfUser } from '../access/content-access.js';
import { UnchangedDatabaseCache } from '../../db/unchanged-cache.js';
import type { RevocationsRepository } from './revocations-repository.js';
import { looksLikeJwt, type TokenIssuer, type VerifiedToken } from './tokens.js';
import { parseJsonColumnOrThrow } from '../../db/json-column.js';

/** Credentials as found in the request headers, before anything is verified. */
export type Credentials =
  | { kind: 'bearer'; value: string }
  | { kind: 'api_key'; value: string }
  | { kind: 'basic'; username: string; password: string }
  /**
   * A session established earlier (the Komga session cookie), bound to the user's security stamp when it was
   * opened; `apiKeyId` when it was opened with an API key.
   */
  | { kind: 'session'; userId: string; sessionId: string; stamp: string; apiKeyId?: string }
  /** The username a trusted authenticating proxy named (proxy-auth module); only made from a trusted peer. */
  | { kind: 'proxy'; username: string };

/** Finds (or, when allowed, creates) the account a trusted proxy names; undefined when there is none. */
export interface ProxyAccounts {
  find(username: string): Promise<UserRow | undefined>;
  provision(username: string): Promise<UserRow | undefined>;
}

/** Basic with a username and password (not `api`:key): the one kind of credential a person can guess. */
export const isPassword = (credentials: Credentials): boolean => credentials.kind === 'basic' && credentials.username !== 'api';

export interface CredentialHeaders {
  authorization?: string;
  'x-api-key'?: string | string[];
}

export const invalidKeyFormat = () =>
  new AppError(401, 'InvalidApiKeyFormat', 'Invalid API key format: expected colophon_<8-character prefix>_<secret>');
const unauthorized = (message: string) => new AppError(401, 'Unauthorized', message);

export function readCredentials(headers: CredentialHeaders): Credentials | undefined {
  const apiKey = Array.isArray(headers['x-api-key']) ? headers['x-api-key'][0] : headers['x-api-key'];
  if (apiKey !== undefined && apiKey !== '') return { kind: 'api_key', value: apiKey.trim() };
  const auth = headers.authorization?.trim();
  if (!auth) return undefined;
  const space = auth.indexOf(' ');
  const scheme = (space === -1 ? auth : auth.slice(0, space)).toLowerCase();
  const value = space === -1 ? '' : auth.slice(space + 1).trim();
  if (scheme === 'bearer') return { kind: 'bearer', value };
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) throw unauthorized('Malformed Basic credentials');
    return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  throw unauthorized(`Unsupported authorization scheme "${scheme}"`);
}

// Basic auth sends the password on every request (OPDS readers page through feeds quickly); argon2 each time
// would cost ~20 ms of CPU per page. A verified pair is remembered briefly, bound to the stored hash, so a
// password change or reset invalidates it at once. The account lock is checked on every request all the same.
const BASIC_CACHE_TTL_MS = 5 * 60_000;
const BASIC_CACHE_MAX = 10_000;
// last_used_at is written at most once a minute per key, so a busy reader app does not turn reads into writes.
const TOUCH_INTERVAL_MS = 60_000;

const basicCacheKey = (username: string, password: string): string =>
  createHash('sha256').update(`${username}\u0000${password}`).digest('hex');

type TokenUser = { revoked: boolean; user: UserRow | undefined };
const tokenKey = (jti: string, userId: string): string => `token:${jti}:${userId}`;

export class CallerResolver {
  private readonly basicCache = new Map<string, { userId: string; passwordHash: string; at: number }>();
  /** The JWT callers of user rows as remembered (rows read afresh after any write are new objects). */
  private readonly jwtBases = new WeakMap<UserRow, Caller>();
  private readonly lastTouch = new Map<string, number>();

  constructor(
    private readonly users: UserAccounts,
    private readonly apiKeys: ApiKeyLookup,
    private readonly revocations: RevocationsRepository,
    private readonly tokens: TokenIssuer,
    /** Basic passwords are checked under the same account lockout as logins. */
    private readonly passwords: PasswordChecks,
    /**
     * Users and revocations as last read, until the database changes (SQLite; see db/unchanged-cache.ts): a client's
     * every request would otherwise ask for the same user row and the same token's revocation. Any write (a user
     * disabled or deleted, a logout) starts afresh, so both still take effect at once.
     */
    private readonly lookups?: UnchangedDatabaseCache<UserRow | ApiKeyRow | boolean | undefined | TokenUser>,
    private readonly proxyAccounts?: ProxyAccounts,
  ) {}

  async resolve(credentials: Credentials): Promise<Caller> {
    switch (credentials.kind) {
      case 'api_key':
        return this.fromApiKey(credentials.value, 'api_key');
      case 'bearer':
        if (looksLikeApiKey(credentials.value) || !looksLikeJwt(credentials.value)) return this.fromApiKey(credentials.value, 'api_key');
        return this.fromJwt(credentials.value);
      case 'basic':
        if (credentials.username === 'api') return this.fromApiKey(credentials.password, 'basic');
        return this.fromPassword(credentials.username, credentials.password);
      case 'session':
        return this.fromSession(credentials);
      case 'proxy':
        return this.fromProxy(credentials.username);
    }
  }

  /**
   * Read on every request (never in `remembered`): a user disabled, deleted or renamed is refused on the next one.
   * The row is kept only while the database is unchanged (SQLite), like every other lookup here.
   */
  private async fromProxy(username: string): Promise<Caller> {
    const accounts = this.proxyAccounts;
    if (!accounts) throw unauthorized('Authentication required');
    let user = this.lookups
      ? ((await this.lookups.remember(`username:${username.trim().toLowerCase()}`, () => accounts.find(username))) as UserRow | undefined)
      : await accounts.find(username);
    user ??= await accounts.provision(username);
    if (!user) throw unauthorized('The proxy signed in a user who has no Colophon account: ask an administrator to create it');
    return this.base(this.checkedUser(user), 'proxy');
  }

  /**
   * The caller of a JWT whose every answer is remembered: its signature and claims (TokenIssuer) and, on SQLite
   * with nothing written since they were read, its user row and revocation (the same entry `resolve` keeps). No
   * promise and no query, for the request a reader makes on every page turn. Undefined whenever anything must be
   * read or a refusal be given: `resolve` then decides with the same rules, so nothing taken away is missed (any
   * write starts the remembered answers afresh, see db/unchanged-cache.ts).
   */
  remembered(credentials: Credentials): Caller | undefined {
    if (!this.lookups) return undefined;
    if (credentials.kind === 'api_key' || (credentials.kind === 'bearer' && looksLikeApiKey(credentials.value)))
      return this.rememberedKey(credentials.value, 'api_key');
    if (credentials.kind !== 'bearer') return undefined;
    const verified = this.tokens.remembered(credentials.value);
    if (!verified) return undefined;
    const found = this.lookups.peek(tokenKey(verified.jti, verified.userId)) as TokenUser | undefined;
    const user = found?.user;
    if (!found || found.revoked || !user || user.disabled || user.security_stamp !== verified.stamp) return undefined;
    return this.jwtCaller(user, verified);
  }

  /** The same for an API key (`X-API-Key` or Bearer): its row and its user as remembered, its secret checked. */
  private rememberedKey(value: string, method: 'api_key'): Caller | undefined {
    const parsed = parseApiKey(value);
    const row = parsed && (this.lookups?.peek(`key:${parsed.prefix}`) as ApiKeyRow | undefined);
    if (!parsed || !row || !secretMatches(parsed.secret, row.secret_hash)) return undefined;
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return undefined;
    const user = this.lookups?.peek(`user:${row.user_id}`) as UserRow | undefined;
    if (!user || user.disabled) return undefined;
    return this.keyCaller(row, user, method);
  }

  private async fromJwt(token: string): Promise<Caller> {
    const verified = await this.tokens.verify(token);
    if (!verified) throw unauthorized('Invalid or expired token');
    const found = await this.tokenUser(verified.jti, verified.userId);
    if (found.revoked) throw unauthorized('Token has been revoked (logged out)');
    return this.jwtCaller(this.checkedUser(found.user, verified.stamp), verified);
  }

  private jwtCaller(user: UserRow, verified: VerifiedToken): Caller {
    return { ...this.base(user, 'jwt'), tokenId: verified.jti, tokenExpiresAt: verified.expiresAt };
  }

  private async fromApiKey(value: string, method: 'api_key' | 'basic'): Promise<Caller> {
    const parsed = parseApiKey(value);
    if (!parsed) throw invalidKeyFormat();
    const row = this.lookups
      ? ((await this.lookups.remember(`key:${parsed.prefix}`, () => this.apiKeys.findByPrefix(parsed.prefix))) as ApiKeyRow | undefined)
      : await this.apiKeys.findByPrefix(parsed.prefix);
    if (!row || !secretMatches(parsed.secret, row.secret_hash)) throw unauthorized('Invalid API key');
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) throw unauthorized('API key has expired');
    return this.keyCaller(row, await this.activeUser(row.user_id), method);
  }

  private keyCaller(row: ApiKeyRow, user: UserRow, method: 'api_key' | 'basic'): Caller {
    this.touch(row);
    const permissions = keyPermissions(this.base(user, method).permissions, parseJsonColumnOrThrow<string[]>(row.permissions));
    return { ...this.base(user, method), apiKeyId: row.id, permissions, isAdmin: permissions.has('system-admin') };
  }

  /**
   * The caller of Basic credentials verified recently (still the stored hash), without checking the password
   * again; undefined for anything else. Such a pair is no guess: it is let through where guessing is stopped.
   */
  async verifiedBefore(credentials: Credentials): Promise<Caller | undefined> {
    if (credentials.kind !== 'basic' || credentials.username === 'api') return undefined;
    return this.fromCache(basicCacheKey(credentials.username, credentials.password));
  }

  private async fromCache(cacheKey: string): Promise<Caller | undefined> {
    const cached = this.basicCache.get(cacheKey);
    if (!cached || Date.now() - cached.at >= BASIC_CACHE_TTL_MS) return undefined;
    const user = await this.userRow(cached.userId);
    if (user && user.password_hash === cached.passwordHash && !user.disabled) {
      await this.passwords.ensureUnlocked(user.id);
      return this.base(user, 'basic');
    }
    this.basicCache.delete(cacheKey);
    return undefined;
  }

  private async fromPassword(username: string, password: string): Promise<Caller> {
    const cacheKey = basicCacheKey(username, password);
    const remembered = await this.fromCache(cacheKey);
    if (remembered) return remembered;
    const user = await this.passwords.verify(username, password);
    if (this.basicCache.size >= BASIC_CACHE_MAX) this.basicCache.clear();
    this.basicCache.set(cacheKey, { userId: user.id, passwordHash: user.password_hash, at: Date.now() });
    return this.base(user, 'basic');
  }

  /**
   * A session ends when logged out (its id is revoked like a JWT's), when the user's security stamp changes, and,
   * when opened with an API key, with the key (revoked or expired); such a session keeps the key's permissions.
   */
  private async fromSession(session: Extract<Credentials, { kind: 'session' }>): Promise<Caller> {
    if (await this.isRevoked(session.sessionId)) throw unauthorized('The session has ended (logged out)');
    const user = await this.activeUser(session.userId, session.stamp);
    if (!session.apiKeyId) return this.base(user, 'session');
    const row = await this.apiKeys.findOwned(session.userId, session.apiKeyId);
    if (!row) throw unauthorized('The API key of this session has been revoked');
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) throw unauthorized('The API key of this session has expired');
    const permissions = keyPermissions(this.base(user, 'session').permissions, parseJsonColumnOrThrow<string[]>(row.permissions));
    return { ...this.base(user, 'session'), apiKeyId: row.id, permissions, isAdmin: permissions.has('system-admin') };
  }

  private async isRevoked(jti: string): Promise<boolean> {
    if (!this.lookups) return this.revocations.isRevoked(jti);
    return (await this.lookups.remember(`revoked:${jti}`, () => this.revocations.isRevoked(jti))) === true;
  }

  /** A JWT's user and whether the token is revoked: one query (or none while the SQLite database is unchanged). */
  private async tokenUser(jti: string, userId: string): Promise<TokenUser> {
    if (!this.lookups) return this.revocations.tokenUser(jti, userId);
    return (await this.lookups.remember(tokenKey(jti, userId), () => this.revocations.tokenUser(jti, userId))) as TokenUser;
  }

  /** `stamp`: the security stamp a token or session carries; it must still be the user's. */
  private async activeUser(id: string, stamp?: string): Promise<UserRow> {
    return this.checkedUser(await this.userRow(id), stamp);
  }

  private async userRow(id: string): Promise<UserRow | undefined> {
    if (!this.lookups) return this.users.findById(id);
    return (await this.lookups.remember(`user:${id}`, () => this.users.findById(id))) as UserRow | undefined;
  }

  /**
   * A user as a caller of their own, with their own access rules (an administrator's export of their data sees what
   * they see, never more); undefined for an id that names no enabled account.
   */
  async ofUser(userId: string): Promise<Caller | undefined> {
    const user = await this.users.findById(userId);
    if (!user || user.disabled) return undefined;
    return this.freshBase(user, 'jwt');
  }

  private checkedUser(user: UserRow | undefined, stamp?: string): UserRow {
    // A deleted or disabled user's tokens and keys stop working at once.
    if (!user || user.disabled) throw unauthorized('User no longer exists or is disabled');
    if (stamp !== undefined && stamp !== user.security_stamp) {
      throw unauthorized('The session has ended: the password or the account changed, or the user signed out everywhere');
    }
    return user;
  }

  private base(user: UserRow, method: Caller['method']): Caller {
    // The same remembered row gives the same caller: its permissions are not parsed and built again per request.
    if (method === 'jwt') {
      let known = this.jwtBases.get(user);
      if (!known) this.jwtBases.set(user, (known = this.freshBase(user, method)));
      return known;
    }
    return this.freshBase(user, method);
  }

  private freshBase(user: UserRow, method: Caller['method']): Caller {
    const permissions = userPermissions(user.role, parseJsonColumnOrThrow<string[]>(user.permissions));
    return {
      user: { id: user.id, username: user.username, email: user.email, role: user.role },
      permissions,
      apiKeyId: null,
      tokenId: null,
      tokenExpiresAt: null,
      method,
      isAdmin: permissions.has('system-admin'),
      securityStamp: user.security_stamp,
      scope: scopeOfUser(user),
    };
  }

  private touch(row: ApiKeyRow): void {
    const now = Date.now();
    const last = this.lastTouch.get(row.id) ?? (row.last_used_at ? Date.parse(row.last_used_at) : 0);
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.lastTouch.set(row.id, now);
    void this.apiKeys.touch(row.id, new Date(now).toISOString()).catch(() => undefined);
  }
}
