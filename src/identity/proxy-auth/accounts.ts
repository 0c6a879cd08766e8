import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../http/errors.js';
import type { UserRow } from '../auth/accounts.js';
import type { ProxyAccounts } from '../auth/resolve-caller.js';
import { Username } from '../auth/schemas.js';
import type { OidcAccounts } from '../oidc/service.js';
import type { ProxyAuthConfig } from './credentials.js';

type Accounts = Pick<OidcAccounts, 'createAccount'> & { findByUsername(username: string): Promise<UserRow | undefined> };

/**
 * The accounts a trusted proxy names, by username only (never by e-mail address: the proxy vouches for a name).
 * Provisioning creates them as OIDC provisioning does (auth service createAccount: the household's defaults for
 * new accounts), with a password nobody knows and an address that cannot receive mail.
 */
export class ProxyUserAccounts implements ProxyAccounts {
  constructor(
    private readonly config: Pick<ProxyAuthConfig, 'provision' | 'default_role'>,
    private readonly accounts: Accounts,
  ) {}

  find(username: string): Promise<UserRow | undefined> {
    return this.accounts.findByUsername(username);
  }

  async provision(username: string): Promise<UserRow | undefined> {
    if (!this.config.provision) return undefined;
    const name = Username.safeParse(username);
    if (!name.success) throw new AppError(401, 'Unauthorized', 'The proxy named a user whose name Colophon cannot use as a username');
    const email = `${createHash('sha256').update(name.data.toLowerCase()).digest('hex').slice(0, 16)}@proxy.invalid`;
    try {
      return await this.accounts.createAccount(
        { username: name.data, email, password: randomBytes(24).toString('base64url') },
        this.config.default_role,
        [],
        false,
      );
    } catch (err) {
      // Two first requests at once: the other one created it.
      if (err instanceof AppError && err.statusCode === 409) return this.accounts.findByUsername(name.data);
      throw err;
    }
  }
}
