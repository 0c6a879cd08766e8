import { z } from 'zod';
import type { App } from '../../http/types.js';
import { LoginResponse, NewAccountBody } from '../auth/schemas.js';
import type { SetupService } from './service.js';

const SetupStatus = z
  .object({
    setup_required: z.boolean().describe('True until the first administrator exists.'),
    version: z.string(),
  })
  .meta({ id: 'SetupStatus' });

export function registerSetupRoutes(app: App, setup: SetupService, version: string): void {
  app.route({
    method: 'GET',
    url: '/setup/status',
    config: { public: true },
    schema: { summary: 'Tell whether initial setup is needed', tags: ['setup'], security: [], response: { 200: SetupStatus } },
    handler: async () => ({ setup_required: await setup.isRequired(), version }),
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
