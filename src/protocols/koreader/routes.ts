import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Credentials, deviceHint } from '../../identity/index.js';
import type { App } from '../../http/types.js';
import type { SettingsService } from '../../operations/index.js';
import { KosyncError, type KosyncProgressInput, type KosyncService } from './service.js';

/** KOReader asks for this media type (`Accept`) and may send its bodies as it. */
export const KOSYNC_MEDIA_TYPE = 'application/vnd.koreader.v1+json';
const ENDPOINTS = ['healthcheck', 'users', 'syncs'];

/**
 * The API key of a kosync request: the path segment before the endpoint (`/koreader/{key}/users/auth`, the URL a
 * user pastes into KOReader), else `x-auth-user` (KOReader's user name field). Its `x-auth-key` is an MD5 of the
 * password field and is ignored: a key typed there could not be checked.
 */
export function kosyncCredentials(prefix: string): (request: FastifyRequest) => Credentials | undefined {
  return (request) => {
    if (!request.url.startsWith(`${prefix}/`)) return undefined;
    const first = request.url.slice(prefix.length + 1).split(/[/?]/)[0] ?? '';
    if (first && !ENDPOINTS.includes(first)) return { kind: 'api_key', value: decodeURIComponent(first) };
    const user = request.headers['x-auth-user'];
    const value = Array.isArray(user) ? user[0] : user;
    return value ? { kind: 'api_key', value: value.trim() } : undefined;
  };
}

/**
 * KOReader's progress sync server (the kosync protocol of koreader-sync-server), mounted at the prefix and again
 * under `{prefix}/:key`. Routes are public to the auth hooks, which still resolve the caller and rate-limit:
 * a missing or refused key answers the protocol's 2001, not Colophon's error body, which KOReader cannot read.
 */
export function registerKosyncRoutes(app: App, kosync: KosyncService, options: { prefix: string; settings: SettingsService }): void {
  const config = { public: true } as const;
  const schema = { hide: true } as const;

  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json').send(body);
  const run = async (reply: FastifyReply, status: number, work: () => Promise<unknown>) => {
    try {
      return send(reply, status, await work());
    } catch (err) {
      if (err instanceof KosyncError) return send(reply, err.status, { code: err.code, message: err.message });
      throw err;
    }
  };

  app.register(
    async (k) => {
      // A body that does not parse (KOReader's media type or plain JSON) is the protocol's "Invalid request", in
      // the protocol's body; anything else goes on to the server's own handler.
      k.setErrorHandler((err: Error & { code?: unknown; statusCode?: number }, _req, reply) => {
        if (err instanceof KosyncError) return send(reply, err.status, { code: err.code, message: err.message });
        if (typeof err.code === 'string' && err.code.startsWith('FST_ERR_CTP_') && err.statusCode === 400) {
          const invalid = new KosyncError(2003);
          return send(reply, invalid.status, { code: invalid.code, message: invalid.message });
        }
        throw err;
      });
      k.addContentTypeParser(KOSYNC_MEDIA_TYPE, { parseAs: 'string' }, (_req, body, done) => {
        try {
          done(null, body === '' ? {} : JSON.parse(body as string));
        } catch {
          done(new KosyncError(2003) as Error, undefined);
        }
      });
      for (const base of ['', '/:key']) {
        k.get(`${base}/healthcheck`, { config, schema }, (_req, reply) => send(reply, 200, { state: 'OK' }));
        k.get(`${base}/users/auth`, { config, schema }, (req, reply) =>
          run(reply, 200, async () => {
            kosync.authorize(req.caller);
            return { authorized: 'OK' };
          }),
        );
        k.post(`${base}/users/create`, { config, schema }, (req, reply) =>
          run(reply, 201, async () => kosync.createUser(req.caller, options.settings.peek('registration_enabled'))),
        );
        k.put(`${base}/syncs/progress`, { config, schema }, (req, reply) =>
          run(reply, 200, () =>
            kosync.update(kosync.authorize(req.caller, 'progress-write'), (req.body ?? {}) as KosyncProgressInput, deviceHint(req)),
          ),
        );
        k.get<{ Params: { document: string } }>(`${base}/syncs/progress/:document`, { config, schema }, (req, reply) =>
          run(reply, 200, () => kosync.get(kosync.authorize(req.caller), req.params.document)),
        );
      }
    },
    { prefix: options.prefix },
  );
}
