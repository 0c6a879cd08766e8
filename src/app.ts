import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config/schema.js';
import type { Database } from './db/connection.js';
import { registerErrorHandling } from './http/errors.js';
import { registerOpenApi } from './http/openapi.js';
import './http/route-config.js';
import type { App } from './http/types.js';
import { registerHealthRoutes } from './modules/ops/health-routes.js';

export interface BuildAppOptions {
  config: Config;
  /** Owned by the app from now on: closed when the app closes. */
  database: Database;
  logger?: FastifyServerOptions['logger'];
}

/** Headers and body fields that carry secrets never reach the logs. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-auth-token"]',
  'res.headers["set-cookie"]',
];

/**
 * Builds the Fastify instance from a Config: routes, schemas, hooks. It starts no background work and
 * opens no connection by itself (the database is lazy), so `bindery openapi` can build it offline.
 */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logging.level, redact: { paths: REDACT, censor: '[redacted]' } },
    trustProxy: config.server.trust_proxy,
    bodyLimit: config.server.body_limit_bytes,
    // Komga clients and Paperback append a trailing slash; never answer those with a redirect.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  await registerOpenApi(app, { docsEnabled: config.api.enable_api_docs, docsPath: config.api.api_docs_path });

  registerHealthRoutes(app, { pingDatabase: () => database.ping() });

  app.addHook('onClose', async () => {
    await database.close();
  });
  return app;
}
