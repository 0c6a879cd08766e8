import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/types.js';
import { AppError } from '../../http/errors.js';
import type { Credentials } from '../../identity/index.js';
import type { SettingsService } from '../../operations/index.js';
import { SESSION_TTL_SECONDS, type KomgaSessions } from './session.js';

/** The path parameter holding the prefix: routes are registered once as `/:komgaPrefix/api/v1/...`. */
export const PREFIX_PARAM = 'komgaPrefix';

export interface KomgaGate {
  /** For `registerAuthHooks({extraCredentials})`: the session of a Komga route when no header credentials are sent. */
  credentials(request: FastifyRequest): Credentials | undefined;
}

/**
 * Must run before the auth hooks (register it first): a Komga route answers 404, exactly like an unknown path,
 * when the API is disabled or the path's first segment is not the current prefix. The prefix and the switch are
 * admin settings read on each request (cached for a few seconds, refreshed at once on this instance when changed),
 * so a change moves the API without a restart. The gate also reads the session, so the synchronous
 * `credentials()` can hand it to caller resolution.
 */
export function registerKomgaGate(app: App, deps: { settings: SettingsService; sessions: KomgaSessions }): KomgaGate {
  app.decorateRequest('komgaSession', null);
  const gate = async (request: FastifyRequest): Promise<void> => {
    const [enabled, prefix] = await Promise.all([deps.settings.get('komga_api_enabled'), deps.settings.get('komga_api_prefix')]);
    const given = (request.params as Record<string, string | undefined>)[PREFIX_PARAM];
    if (!enabled || given !== prefix) {
      throw new AppError(404, 'NotFound', `No route for ${request.method} ${request.url.split('?')[0]}`);
    }
    request.komgaSession = deps.sessions.fromRequest(request);
  };
  // Callback style: every request passes here, and the others (a page turn) must not pay a promise for it.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.routeOptions.config?.komga) return done();
    gate(request).then(() => done(), done);
  });
  return {
    credentials: (request) => {
      const session = request.komgaSession;
      if (!session || !request.routeOptions.config?.komga) return undefined;
      const credentials: Credentials = { kind: 'session', userId: session.userId, sessionId: session.sessionId, stamp: session.stamp };
      return session.apiKeyId ? { ...credentials, apiKeyId: session.apiKeyId } : credentials;
    },
  };
}

/**
 * After a successful request on the Komga API made with Basic or an API key, the response opens a session
 * (Mihon's tracker then calls with the cookie only); a session close to its end is renewed.
 */
export function registerSessionIssuing(app: App, sessions: KomgaSessions): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const caller = request.caller;
    if (!caller || reply.statusCode >= 400) return payload;
    const fresh = caller.method === 'basic' || caller.method === 'api_key';
    const session = request.komgaSession;
    if (fresh) sessions.attach(request, reply, caller);
    else if (caller.method === 'session' && session && session.expiresAt - Date.now() < (SESSION_TTL_SECONDS * 1000) / 2)
      sessions.attach(request, reply, caller, session.sessionId);
    return payload;
  });
}
