import { Uuid } from '../../http/params.js';
import { z } from 'zod';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { registerKomgaBookRoutes } from './book-routes.js';
import { libraryFor } from '../../libraries/index.js';
import { libraryDto, userDto } from './dto.js';
import { PREFIX_PARAM, registerSessionIssuing } from './gate.js';
import { KomgaPresenter, type KomgaServices } from './presenter.js';
import { hidden, komgaRoute } from './route-config.js';
import { registerKomgaSeriesRoutes } from './series-routes.js';
import { registerKomgaListRoutes } from './list-routes.js';
import { registerKomgaMetadataRoutes } from './metadata-routes.js';
import { SESSION_COOKIE, SESSION_TTL_SECONDS, type KomgaSessions } from './session.js';

export interface KomgaApiDeps extends KomgaServices {
  sessions: KomgaSessions;
  /** Ends a session for good (AuthService.endSession): logging out must not leave a copy of the cookie working. */
  endSession(sessionId: string, until: Date): Promise<void>;
}

/**
 * The Komga-compatible API: registered once under `/:komgaPrefix`, and served only while the prefix matches the
 * admin setting (see gate.ts, which must be registered before the auth hooks). A thin presenter: every answer
 * comes from the native services.
 */
export async function registerKomgaApi(app: App, deps: KomgaApiDeps): Promise<void> {
  const komga = new KomgaPresenter(deps);
  await app.register(
    async (scope) => {
      const api = scope as unknown as App;
      // Komga clients POST without a body but with a JSON content type (mark series read): http/json-body.ts takes
      // an empty body as no body for the whole server.
      registerSessionIssuing(api, deps.sessions);
      registerKomgaSeriesRoutes(api, komga);
      registerKomgaBookRoutes(api, komga);
      registerKomgaListRoutes(api, komga);
      registerKomgaMetadataRoutes(api, komga);
      registerKomgaOtherRoutes(api, komga, deps.endSession);
    },
    { prefix: `/:${PREFIX_PARAM}` },
  );
}

function registerKomgaOtherRoutes(app: App, komga: KomgaPresenter, endSession: KomgaApiDeps['endSession']): void {
  const { libraries } = komga.services;

  app.route({
    method: 'GET',
    url: '/api/v1/libraries',
    config: komgaRoute('libraries-read'),
    schema: { ...hidden, summary: 'Libraries (Komga): those shared with the caller' },
    handler: async (req) => {
      const caller = callerOf(req);
      return (await libraries.listFor(caller, 0, 10_000)).data.map((l) => libraryDto(libraryFor(caller, l)));
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/libraries/:libraryId',
    config: komgaRoute('libraries-read'),
    schema: { ...hidden, summary: 'One library (Komga); 404 unless shared with the caller', params: z.object({ libraryId: Uuid }) },
    handler: async (req) => {
      const caller = callerOf(req);
      return libraryDto(libraryFor(caller, await libraries.getFor(caller, req.params.libraryId)));
    },
  });

  for (const version of ['v1', 'v2']) {
    app.route({
      method: 'GET',
      url: `/api/${version}/users/me`,
      config: komgaRoute(),
      schema: { ...hidden, summary: 'The current user (Komga)' },
      handler: (req) => userDto(callerOf(req)),
    });
  }

  app.route({
    method: 'GET',
    url: '/api/v1/login/set-cookie',
    config: komgaRoute(),
    schema: { ...hidden, summary: 'Open a session cookie (Komga)' },
    handler: async (_req, reply) => reply.code(204).send(),
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/api/logout',
    config: { ...komgaRoute(), public: true },
    schema: { ...hidden, summary: 'End the session (Komga)' },
    handler: async (req, reply) => {
      // The cookie is cleared whatever happens to the revocation: a full disk or a database outage must not
      // leave the app signed in. Renewals keep the id and expire at most one lifetime from now: the revocation
      // covers every copy.
      reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
      if (req.komgaSession) await endSession(req.komgaSession.sessionId, new Date(Date.now() + SESSION_TTL_SECONDS * 1000));
      return reply.code(204).send();
    },
  });
}
