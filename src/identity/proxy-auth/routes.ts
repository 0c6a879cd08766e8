import { nowIso } from '../../db/ids.js';
import { AppError } from '../../http/errors.js';
import type { App } from '../../http/types.js';
import type { OidcAccounts } from '../oidc/service.js';
import { LoginResponse } from '../auth/schemas.js';

type SessionAccounts = Pick<OidcAccounts, 'findById' | 'update' | 'issueFor'>;

/**
 * The web app's session for a person the trusted proxy signed in: the same tokens as a password sign-in. It
 * answers only a request whose caller the proxy's header named (hooks.ts resolved it from a trusted peer); any
 * other request gets the plain 401 of an anonymous one, whatever it sent.
 */
export function registerProxySessionRoutes(app: App, accounts: SessionAccounts): void {
  app.route({
    method: 'POST',
    url: '/auth/proxy-session',
    config: { public: true },
    schema: {
      summary: 'Open a web session for the user an authenticating proxy signed in',
      description:
        'Only when `auth.proxy` is enabled and the request comes from one of its `trusted_proxies` with the username header (docs/sign-in.md).',
      tags: ['auth'],
      response: { 200: LoginResponse },
    },
    handler: async (req) => {
      if (req.caller?.method !== 'proxy') throw req.caller ? noProxySignIn() : (req.authError ?? noProxySignIn());
      const user = await accounts.findById(req.caller.user.id);
      if (!user || user.disabled) throw new AppError(401, 'Unauthorized', 'User no longer exists or is disabled');
      await accounts.update(user.id, { last_login_at: nowIso() });
      return accounts.issueFor(user);
    },
  });
}

const noProxySignIn = () => new AppError(401, 'Unauthorized', 'Authentication required');
