import { z } from 'zod';
import type { App } from '../../http/types.js';
import { LoginResponse, NewAccountBody } from '../auth/schemas.js';
import type { SetupService } from './service.js';

const SetupStatus = z
  .object({
    setup_required: z.boolean().describe('True until the first administrator exists.'),
    version: z.string(),
    registration_enabled: z
      .boolean()
      .describe(
        'Whether POST /auth/register accepts new accounts (the admin setting `registration_enabled`): sign-in screens offer it only then.',
      ),
    koreader_sync_path: z
      .string()
      .nullable()
      .describe(
        "Path of KOReader's progress sync server (`koreader.prefix`); the URL to paste into KOReader is `<server><path>/<api key>`. Null when it is switched off.",
      ),
  })
  .meta({ id: 'SetupStatus' });

/** What a client may know before signing in, besides whether setup is needed. */
export interface PublicServerFacts {
  version: string;
  registrationEnabled(): Promise<boolean>;
  koreaderSyncPath: string | null;
}

export function registerSetupRoutes(app: App, setup: SetupService, facts: PublicServerFacts): void {
  app.route({
    method: 'GET',
    url: '/setup/status',
    config: { public: true },
    schema: { summary: 'Tell whether initial setup is needed', tags: ['setup'], security: [], response: { 200: SetupStatus } },
    handler: async () => ({
      setup_required: await setup.isRequired(),
      version: facts.version,
      registration_enabled: await facts.registrationEnabled(),
      koreader_sync_path: facts.koreaderSyncPath,
    }),
  });

  app.route({
    method: 'POST',
    url: '/setup/initialize',
    config: { public: true },
    schema: {
      summary: 'Create the initial admin user',
      description: 'Creates the first administrator and logs it in (201 with the login response). Any later call answers 409 `Conflict`.',
      tags: ['setup'],
      security: [],
      body: NewAccountBody,
      response: { 201: LoginResponse },
    },
    handler: async (req, reply) => reply.code(201).send(await setup.initialize(req.body)),
  });
}
