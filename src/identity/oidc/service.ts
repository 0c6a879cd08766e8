import { createHash, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { newSecurityStamp } from '../auth/security-stamp.js';
import { AppError, notFound } from '../../http/errors.js';
import { nowIso } from '../../db/ids.js';
import type { LoginResponse } from '../auth/service.js';
import type { UserRow } from '../auth/accounts.js';
import { contentAccessColumn, parseContentAccess, type ContentAccess } from '../access/content-access.js';
import { mappedLibraries, mappedRole, usernameCandidate, verifiedEmail, type ProviderClaims, type Role } from './accounts.js';
import { explainProviderError } from './explain.js';
import type { Provider, ProviderRegistry } from './providers.js';
import type { FlowRow, OidcRepository } from './repository.js';

/** How long a sign-in may take at the provider, and how long the web app has to exchange its one-time code. */
const FLOW_TTL_MS = 10 * 60_000;
const HANDOFF_TTL_MS = 60_000;

/** What the sign-in needs of the accounts (users repository and auth service, wired by the composition root). */
export interface OidcAccounts {
  findById(id: string): Promise<UserRow | undefined>;
  findByEmail(email: string): Promise<UserRow | undefined>;
  conflicts(username: string, email: string): Promise<{ username: boolean; email: boolean }>;
  update(id: string, changes: Partial<Omit<UserRow, 'id'>>): Promise<void>;
  countAdmins(exceptId?: string): Promise<number>;
  createAccount(
    account: { username: string; email: string; password: string },
    role: string,
    permissions: string[],
    emailVerified: boolean,
    access?: ContentAccess,
  ): Promise<UserRow>;
  issueFor(user: UserRow): Promise<LoginResponse>;
  /** Every library (the provider's groups may name them). */
  libraries(): Promise<Array<{ id: string; name: string }>>;
}

/** A failure the person must read: the routes send them back to the login (or account) page with it. */
export class SignInProblem extends Error {
  override name = 'SignInProblem';
}

export interface StartOptions {
  /** The browser's sign-in cookie value: the callback must come back with the same one. */
  browser: string;
  redirectUri: string;
  /** Where the web app goes once signed in (a path of this server). */
  returnTo: string;
  /** A signed-in user linking this provider to their account (account page). */
  linkUserId?: string;
}

export type CallbackResult = { kind: 'signed-in'; code: string } | { kind: 'linked'; provider: string };

export interface ExchangeResult extends LoginResponse {
  return_to: string;
  /** Where to send the browser after signing out, to end the provider's session too (null: it offers none). */
  end_session_url: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const newBrowserToken = (): string => randomBytes(32).toString('base64url');

export class OidcService {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly repo: OidcRepository,
    private readonly accounts: OidcAccounts,
  ) {}

  /** Id and display name of each provider, for the login page's buttons. */
  async publicProviders(): Promise<Array<{ id: string; name: string }>> {
    return (await this.registry.list()).filter((p) => p.enabled).map((p) => ({ id: p.id, name: p.name }));
  }

  /** A provider someone may sign in with: a disabled one is the same 404 as one that does not exist. */
  private async enabledProvider(providerId: string): Promise<Provider> {
    const provider = await this.registry.get(providerId);
    if (!provider.enabled) throw notFound('Sign-in provider');
    return provider;
  }

  /** The provider's authorization URL for a new sign-in (PKCE S256, state and nonce remembered for the callback). */
  async start(providerId: string, options: StartOptions): Promise<string> {
    const provider = await this.enabledProvider(providerId);
    const config = await this.configuration(provider);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    void this.repo.purgeExpired(nowIso()).catch(() => undefined);
    await this.repo.insertFlow({
      state,
      provider_id: provider.id,
      browser_hash: sha256(options.browser),
      code_verifier: verifier,
      nonce,
      return_to: options.returnTo,
      link_user_id: options.linkUserId ?? null,
      handoff_hash: null,
      user_id: null,
      end_session_url: null,
      expires_at: new Date(Date.now() + FLOW_TTL_MS).toISOString(),
    });
    const parameters: Record<string, string> = {
      redirect_uri: options.redirectUri,
      scope: provider.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    if (provider.response_mode === 'form_post') parameters.response_mode = 'form_post';
    return client.buildAuthorizationUrl(config, parameters).href;
  }

  /**
   * The provider's answer: checks the state against this browser, trades the code (with the PKCE verifier) for
   * tokens, verifies the ID token (signature, issuer, audience, nonce, times) through openid-client, then finds,
   * links or creates the account. Every failure is a SignInProblem in words.
   */
  async callback(providerId: string, params: URLSearchParams, browser: string | undefined, redirectUri: string): Promise<CallbackResult> {
    const provider = await this.enabledProvider(providerId).catch(() => {
      throw new SignInProblem('This sign-in provider no longer exists or is turned off. Choose another way to sign in.');
    });
    const state = params.get('state');
    const flow = state ? await this.repo.takeFlow(state, nowIso()) : null;
    if (!flow || flow.provider_id !== provider.id || !browser || flow.browser_hash !== sha256(browser)) {
      throw new SignInProblem(
        `This sign-in with ${provider.name} has expired or was started in another browser (the state does not match). Start again.`,
      );
    }
    const config = await this.configuration(provider);
    const url = new URL(redirectUri);
    for (const [key, value] of params) url.searchParams.append(key, value);
    let claims: ProviderClaims;
    let idToken: string | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, url, {
        pkceCodeVerifier: flow.code_verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      idToken = tokens.id_token;
      claims = { ...(tokens.claims() as ProviderClaims) };
      claims = await this.withUserInfo(provider, config, tokens.access_token, claims);
    } catch (err) {
      throw new SignInProblem(explainProviderError(err, provider));
    }

    if (flow.link_user_id) {
      await this.link(provider, flow.link_user_id, claims);
      return { kind: 'linked', provider: provider.name };
    }
    const user = await this.accountFor(provider, claims);
    const code = randomBytes(32).toString('base64url');
    const endSession = config.serverMetadata().end_session_endpoint
      ? client.buildEndSessionUrl(config, {
          ...(idToken ? { id_token_hint: idToken } : {}),
          // Back to the login page (registered at the provider as the post-logout redirect URI).
          post_logout_redirect_uri: redirectUri.replace(/\/api\/v1\/auth\/oidc\/[^/]+\/callback$/, '/sign-in'),
        }).href
      : null;
    await this.repo.insertHandoff({
      ...flow,
      code_verifier: '',
      nonce: '',
      handoff_hash: sha256(code),
      user_id: user.id,
      end_session_url: endSession,
      expires_at: new Date(Date.now() + HANDOFF_TTL_MS).toISOString(),
    });
    return { kind: 'signed-in', code };
  }

  /** The web app's session for a one-time code, in the browser that started the sign-in: the same as a password sign-in's. */
  async exchange(code: string, browser: string | undefined): Promise<ExchangeResult> {
    const flow: FlowRow | null = await this.repo.takeHandoff(sha256(code), nowIso());
    const refused = new AppError(400, 'InvalidToken', 'This sign-in code is invalid, already used or expired: sign in again');
    if (!flow?.user_id || !browser || flow.browser_hash !== sha256(browser)) throw refused;
    const user = await this.accounts.findById(flow.user_id);
    if (!user || user.disabled) throw refused;
    await this.accounts.update(user.id, { last_login_at: nowIso() });
    return { ...(await this.accounts.issueFor(user)), return_to: flow.return_to, end_session_url: flow.end_session_url };
  }

  async linksOf(
    userId: string,
  ): Promise<Array<{ provider_id: string; provider_name: string; email: string | null; linked_at: string; last_login_at: string | null }>> {
    const names = new Map((await this.registry.list()).map((p) => [p.id, p.name]));
    return (await this.repo.linksOf(userId)).map((l) => ({
      provider_id: l.provider_id,
      provider_name: names.get(l.provider_id) ?? l.provider_id,
      email: l.email,
      linked_at: l.created_at,
      last_login_at: l.last_login_at,
    }));
  }

  async unlink(userId: string, providerId: string): Promise<void> {
    if ((await this.repo.deleteLink(userId, providerId)) === 0) throw notFound('Linked provider');
  }

  private async configuration(provider: Provider): Promise<client.Configuration> {
    try {
      return await this.registry.configuration(provider);
    } catch (err) {
      throw new SignInProblem(explainProviderError(err, provider));
    }
  }

  /** Groups and e-mail are often only in userinfo (Authelia, Authentik): asked when the ID token lacks them. */
  private async withUserInfo(
    provider: Provider,
    config: client.Configuration,
    accessToken: string,
    claims: ProviderClaims,
  ): Promise<ProviderClaims> {
    const lacking = claims.email === undefined || (provider.groups_claim !== undefined && claims[provider.groups_claim] === undefined);
    if (!lacking || !config.serverMetadata().userinfo_endpoint) return claims;
    const info = await client.fetchUserInfo(config, accessToken, claims.sub).catch(() => undefined);
    return info
      ? {
          ...info,
          ...claims,
          ...(claims.email === undefined ? { email: info.email, email_verified: info.email_verified } : {}),
          ...(provider.groups_claim && claims[provider.groups_claim] === undefined
            ? { [provider.groups_claim]: info[provider.groups_claim] }
            : {}),
        }
      : claims;
  }

  private async link(provider: Provider, userId: string, claims: ProviderClaims): Promise<void> {
    const existing = await this.repo.findLink(provider.id, claims.sub);
    if (existing && existing.user_id !== userId)
      throw new SignInProblem(`This ${provider.name} account is already linked to another Colophon account.`);
    if (existing) return;
    if ((await this.repo.linksOf(userId)).some((l) => l.provider_id === provider.id))
      throw new SignInProblem(`Your account is already linked to another ${provider.name} account: unlink it first.`);
    await this.repo.insertLink({
      provider_id: provider.id,
      subject: claims.sub,
      user_id: userId,
      email: typeof claims.email === 'string' ? claims.email : null,
      created_at: nowIso(),
      last_login_at: null,
    });
  }

  /** The linked account, else the one with the same verified e-mail (when allowed), else a new one (when allowed). */
  private async accountFor(provider: Provider, claims: ProviderClaims): Promise<UserRow> {
    const now = nowIso();
    const email = typeof claims.email === 'string' ? claims.email : null;
    const link = await this.repo.findLink(provider.id, claims.sub);
    let user = link ? await this.accounts.findById(link.user_id) : undefined;
    if (user) {
      await this.repo.touchLink(provider.id, claims.sub, email, now);
    } else {
      user = await this.matchOrProvision(provider, claims);
      await this.repo.insertLink({
        provider_id: provider.id,
        subject: claims.sub,
        user_id: user.id,
        email,
        created_at: now,
        last_login_at: now,
      });
    }
    if (user.disabled) throw new SignInProblem('This Colophon account is disabled. Ask an administrator.');
    return this.applyGroups(provider, user, claims);
  }

  private async matchOrProvision(provider: Provider, claims: ProviderClaims): Promise<UserRow> {
    const verified = verifiedEmail(claims);
    const sameEmail = verified ? await this.accounts.findByEmail(verified) : undefined;
    if (sameEmail) {
      if (provider.match_email) {
        if ((await this.repo.linksOf(sameEmail.id)).some((l) => l.provider_id === provider.id))
          throw new SignInProblem(`The Colophon account with this e-mail address is linked to another ${provider.name} account.`);
        return sameEmail;
      }
      throw new SignInProblem(
        `A Colophon account already uses this e-mail address, and ${provider.name} accounts are not matched by e-mail here. Sign in with your password, then link ${provider.name} on your account page.`,
      );
    }
    if (!provider.provision)
      throw new SignInProblem(
        `No Colophon account is linked to this ${provider.name} account. Ask an administrator to create one, or sign in with your password and link ${provider.name} on your account page.`,
      );
    const role = mappedRole(provider, claims) ?? provider.default_role;
    const address =
      verified ?? `${createHash('sha256').update(`${provider.id}:${claims.sub}`).digest('hex').slice(0, 16)}@${provider.id}.oidc.invalid`;
    const base = usernameCandidate(claims);
    for (let n = 1; n <= 50; n++) {
      const username = n === 1 ? base : `${base.slice(0, 58)}-${n}`;
      if ((await this.accounts.conflicts(username, address)).username) continue;
      // Nobody knows this password: the account signs in through the provider (or gets one from an administrator).
      return this.accounts.createAccount(
        { username, email: address, password: randomBytes(24).toString('base64url') },
        role,
        [],
        verified !== undefined,
      );
    }
    throw new SignInProblem('Could not choose a free username for the new account. Ask an administrator to create it.');
  }

  /**
   * The provider's groups decide the role and, when it maps libraries, the libraries at each sign-in; the last
   * administrator is never demoted by them. Age and label rules stay as an administrator set them.
   */
  private async applyGroups(provider: Provider, user: UserRow, claims: ProviderClaims): Promise<UserRow> {
    const changes: Partial<Omit<UserRow, 'id'>> = {};
    const role: Role | undefined = mappedRole(provider, claims);
    if (role && role !== user.role && !(user.role === 'admin' && (await this.accounts.countAdmins(user.id)) === 0)) {
      changes.role = role;
      changes.security_stamp = newSecurityStamp();
    }
    const libraryIds = mappedLibraries(provider, claims, Object.keys(provider.library_map).length ? await this.accounts.libraries() : []);
    if (libraryIds !== undefined) {
      const access = parseContentAccess(user.content_access);
      const column = contentAccessColumn({ ...access, libraryIds });
      if (column !== user.content_access) changes.content_access = column;
    }
    if (Object.keys(changes).length === 0) return user;
    changes.updated_at = nowIso();
    await this.accounts.update(user.id, changes);
    return { ...user, ...changes };
  }
}
