import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Transporter } from 'nodemailer';
import type { Config } from './config/schema.js';
import type { Database } from './db/connection.js';
import { textIn } from './i18n/messages.js';
import { requestLanguage } from './i18n/request.js';
import { clientErrorHandler, errorBody, frameworkErrorHandler, registerErrorHandling } from './http/errors.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { httpServerOptions, limitConnectionsPerAddress, throttledPerAddress } from './http/connection-limits.js';
import { registerOpenApi } from './http/openapi.js';
import { recordRouteTable } from './http/route-table.js';
import type { App } from './http/types.js';
import { RequestMetrics } from './http/request-metrics.js';
import { startPgEventBridge, type EventBridge } from './events/pg-bridge.js';
import { registerAccessLog } from './http/access-log.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerUnchangedAnswers } from './http/unchanged-answers.js';
import { DEFAULT_WEB_APP_DIR, registerWebApp } from './http/web-app.js';
import { permissionTable, redactApiKeys, registerAuthHooks, type RouteAccess } from './identity/index.js';
import { composeServices } from './composition-root.js';

/** The largest uploaded file the API takes (a .cbl of thousands of entries is well under 1 MB). */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

export interface BuildAppOptions {
  config: Config;
  /** Owned by the app from now on: closed when the app closes. */
  database: Database;
  logger?: FastifyServerOptions['logger'];
  /** Replaces SMTP (tests capture mail with nodemailer's JSON transport). */
  mailTransport?: Transporter;
  /**
   * Whether `app.swagger()` is available even with the docs UI off (default true: `colophon openapi`, tests).
   * `colophon serve` turns it off so a start does not load the OpenAPI generator nobody asks for.
   */
  openApiDocument?: boolean;
  /**
   * Tune V8's heap growth of the whole process while background tasks run (`colophon serve`; default off: a test
   * process running many apps keeps V8's own behaviour). See tasks/heap-growth.ts.
   */
  tuneHeapForTasks?: boolean;
  /** The built web app served at `/` (default web/dist of this checkout). */
  webAppDir?: string;
}

/** Headers and body fields that carry secrets never reach the logs. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["x-auth-token"]',
  'req.headers["x-auth-user"]',
  'req.headers["x-auth-key"]',
  'res.headers["set-cookie"]',
];

/**
 * Builds the Fastify instance from a Config: routes, schemas, hooks. It starts no background work and
 * opens no connection by itself (the database is lazy), so `colophon openapi` can build it offline.
 */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { name: 'colophon', level: config.logging.level, redact: { paths: REDACT, censor: '[redacted]' } },
    // The access log (http/access-log.ts) replaces Fastify's two lines per request.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.server.trust_proxy,
    bodyLimit: config.server.body_limit_bytes,
    // Komga clients and Paperback append a trailing slash; never answer those with a redirect.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    keepAliveTimeout: config.server.keep_alive_timeout_seconds * 1000,
    requestTimeout: config.server.request_timeout_seconds * 1000,
    http: httpServerOptions({
      headersTimeoutMs: config.server.headers_timeout_seconds * 1000,
      requestTimeoutMs: config.server.request_timeout_seconds * 1000,
    }),
  }).withTypeProvider<ZodTypeProvider>();
  limitConnectionsPerAddress(
    app.server,
    config.server.max_connections_per_address,
    throttledPerAddress((address, open) =>
      app.log.warn(
        { address, open, max: config.server.max_connections_per_address },
        'connection refused: too many open connections from one address (server.max_connections_per_address)',
      ),
    ),
  );

  recordRouteTable(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const requestMetrics = new RequestMetrics();
  const services = composeServices({
    config,
    database,
    log: app.log,
    mailTransport: options.mailTransport,
    requests: requestMetrics,
    tuneHeapForTasks: options.tuneHeapForTasks ?? false,
  });
  const { settings, identity, background, events, sse, wiring } = services;
  registerErrorHandling(app, {
    onDiskFull: (err) => services.storage.recordDiskFull(err),
    onDatabaseUnavailable: (err) => services.outage.refused(err, 'request'),
  });
  registerJsonBodyParser(app);
  // A worker serves /health (an orchestrator's and a load balancer's check) and nothing else.
  if (config.server.role === 'worker')
    app.addHook('onRequest', (request, reply, done) => {
      if (request.url === '/health' || request.url.startsWith('/health/') || request.url.startsWith('/health?')) return done();
      void reply
        .code(404)
        .send(errorBody('NotFound', textIn(requestLanguage(request), 'This instance is a worker (server.role): it answers /health only')));
    });
  // First of all hooks: whatever the request reads of the database sees every commit made before it came.
  if (database.readChangeVersionAfresh) {
    const afresh = database.readChangeVersionAfresh;
    app.addHook('onRequest', (_request, _reply, done) => {
      afresh();
      done();
    });
  }
  // Right after: a kept list answer is filed under the version read here, before the caller is resolved.
  const keepUnchangedAnswers = registerUnchangedAnswers(app, database);
  // A pooled connection that drops is the start of an outage or a blip the pool mends: counted, not logged each.
  database.reportConnectionErrors?.((err) => services.outage.refused(err, 'connection'));
  app.decorate('events', events);
  app.decorate('background', background);
  app.decorate('sse', sse);
  let bridge: EventBridge | undefined;
  app.decorate('startEventBridge', async () => {
    if (database.dialect === 'postgres' && database.pgConfig && !bridge) {
      bridge = await startPgEventBridge(database.pgConfig, events, { log: app.log });
    }
  });
  // Streams never end on their own: close them first so shutdown does not wait for clients.
  app.addHook('preClose', async () => {
    sse.closeAll();
    await bridge?.stop();
  });

  let routes: RouteAccess[] = [];
  await registerOpenApi(app, {
    document: options.openApiDocument ?? true,
    docsEnabled: config.api.enable_api_docs,
    docsPath: config.api.api_docs_path,
    extraDescription: () => permissionTable(routes),
  });
  registerSecurityHeaders(app, {
    // The docs UI sets its own CSP for its pages. The web app shows covers and pages fetched as blobs and may
    // decode in workers; it must work over plain HTTP on a LAN address, so no upgrade-insecure-requests and
    // HSTS only on HTTPS requests (below).
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'blob:', 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        // The EPUB reader lays chapters out in blob: frames, with the book's own fonts.
        frameSrc: ["'self'", 'blob:'],
        fontSrc: ["'self'", 'blob:', 'data:'],
        connectSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    strictTransportSecurity: false,
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    done();
  });
  if (config.server.cors.enabled) await app.register(cors, { origin: config.server.cors.origins, credentials: true });

  // Steps some areas need before the caller is resolved (the Komga prefix gate), each with its credential source.
  const moreCredentials = wiring.flatMap((area) => (area.beforeAuth ?? []).map((step) => step(app))).filter((c) => c !== undefined);
  const auth = registerAuthHooks(app, {
    resolver: identity.resolver,
    settings,
    isSetupRequired: () => identity.setup.isRequired(),
    extraCredentials: (request) => {
      for (const credentials of moreCredentials) {
        const found = credentials(request);
        if (found) return found;
      }
      return undefined;
    },
    proxyCredentials: identity.proxyCredentials,
  });
  routes = auth.routes;
  keepUnchangedAnswers((request) =>
    request.caller ? `${request.caller.user.id}\0${request.caller.apiKeyId ?? request.caller.tokenId ?? request.caller.method}` : undefined,
  );
  requestMetrics.register(app);
  registerAccessLog(app, { all: config.logging.access_log, slowMs: config.logging.slow_request_ms, redactUrl: redactApiKeys });

  await app.register(
    async (api) => {
      // Uploads (a reading list's .cbl): one file, small, read by the route with request.file().
      await api.register(multipart, { limits: { files: 1, fileSize: UPLOAD_MAX_BYTES, fields: 10, parts: 11 } });
      const v1 = api.withTypeProvider<ZodTypeProvider>();
      for (const area of wiring) for (const group of area.api ?? []) await group(v1);
    },
    { prefix: '/api/v1' },
  );
  // Health, the feeds and the device protocols live at the server root, behind the same auth and rate-limit hooks.
  for (const area of wiring) for (const group of area.root ?? []) await group(app);

  // The web app at `/`, last: its fallback answers only navigations no route above took.
  await registerWebApp(app, { root: options.webAppDir ?? DEFAULT_WEB_APP_DIR, docsPath: config.api.api_docs_path });

  app.addHook('onClose', async () => services.close());
  return app;
}
