import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Transporter } from 'nodemailer';
import type { Config } from './config/schema.js';
import type { Database } from './db/connection.js';
import type { EventBus } from './events/bus.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/errors.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { httpServerOptions, limitConnectionsPerAddress, throttledPerAddress } from './http/connection-limits.js';
import { API_VERSION, registerOpenApi } from './http/openapi.js';
import { recordRouteTable } from './http/route-table.js';
import './http/route-config.js';
import type { App } from './http/types.js';
import { registerApiKeyRoutes } from './identity/index.js';
import { redactApiKeys } from './identity/index.js';
import { permissionTable, registerAuthHooks, type RouteAccess } from './identity/index.js';
import { registerPasswordChangeRoutes } from './identity/index.js';
import { registerAuthRoutes } from './identity/index.js';
import { registerOidcAdminRoutes } from './identity/index.js';
import { registerOidcRoutes } from './identity/index.js';
import { proxyCredentials } from './identity/index.js';
import { registerProxySessionRoutes } from './identity/index.js';
import { registerLibraryRoutes } from './libraries/index.js';
import { registerFilesystemRoutes } from './libraries/index.js';
import { registerHealthRoutes } from './operations/index.js';
import { registerOpsRoutes } from './operations/index.js';
import { registerServerAddressesRoute } from './operations/index.js';
import { RequestMetrics } from './http/request-metrics.js';
import { registerDuplicateRoutes } from './catalog/index.js';
import { registerDeviceRoutes } from './reading/index.js';
import { registerCollectionRoutes } from './lists/index.js';
import { registerReadListRoutes } from './lists/index.js';
import { registerWantToReadRoutes } from './lists/index.js';
import { registerEventRoutes } from './operations/index.js';
import { SseHub } from './http/sse.js';
import { startPgEventBridge, type EventBridge } from './events/pg-bridge.js';
import { registerAccessLog } from './http/access-log.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerUnchangedAnswers } from './http/unchanged-answers.js';
import { registerScanRoutes } from './libraries/index.js';
import { registerWatchRoutes } from './libraries/index.js';
import { registerExplainRoutes } from './libraries/index.js';
import { registerTaskRoutes } from './operations/index.js';
import { registerBookResourceRoutes } from './reading/index.js';
import { registerPreferenceRoutes } from './identity/index.js';
import { registerSettingsRoutes } from './operations/index.js';
import { registerSetupRoutes } from './identity/index.js';
import { registerUserRoutes } from './identity/index.js';
import { registerFeeds } from './protocols/index.js';
import { registerKomgaGate } from './protocols/index.js';
import { registerKomgaApi } from './protocols/index.js';
import { kosyncCredentials, registerKosyncRoutes } from './protocols/index.js';
import { registerKosyncSetupRoute } from './protocols/index.js';
import { koboCredentials } from './protocols/index.js';
import { registerKoboApi } from './protocols/index.js';
import { registerKoboRoutes } from './protocols/index.js';
import { DEFAULT_WEB_APP_DIR, registerWebApp } from './http/web-app.js';
import { registerSeriesRoutes } from './catalog/index.js';
import { registerCoverRoutes } from './catalog/index.js';
import { registerBookRoutes } from './catalog/index.js';
import { registerMetadataRoutes } from './catalog/index.js';
import { registerPageRoutes } from './reading/index.js';
import { registerProgressRoutes } from './reading/index.js';
import { registerStatsRoutes } from './reading/index.js';
import { composeServices, type Background } from './composition-root.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process event bus (entity, scan and task events). */
    events: EventBus;
    /** Libraries, scanning and tasks; `background.start()` starts the background work (server.ts, tests). */
    background: Background;
    /** Open SSE streams (metrics count them; shutdown closes them). */
    sse: SseHub;
    /** On PostgreSQL: carry bus events to and from other instances (server.ts and tests start it). */
    startEventBridge(): Promise<void>;
  }
}

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
  const sse = new SseHub(config.events.keepalive_seconds * 1000);
  const requestMetrics = new RequestMetrics();
  const services = composeServices({
    config,
    database,
    log: app.log,
    mailTransport: options.mailTransport,
    requests: requestMetrics,
    sseConnections: () => sse.size,
    tuneHeapForTasks: options.tuneHeapForTasks ?? false,
  });
  const { settings, identity, background, browsing, events } = services;
  registerErrorHandling(app, {
    onDiskFull: (err) => services.storage.recordDiskFull(err),
    onDatabaseUnavailable: (err) => services.outage.refused(err, 'request'),
  });
  registerJsonBodyParser(app);
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

  // The Komga API's prefix gate runs before authentication (a disabled or moved API is a 404, not a 401), and
  // its session cookie is one more credential source for its own routes.
  const komgaGate = registerKomgaGate(app, { settings, sessions: services.komgaSessions });
  const auth = registerAuthHooks(app, {
    resolver: identity.resolver,
    settings,
    isSetupRequired: () => identity.setup.isRequired(),
    extraCredentials: (
      (kosync) => (request) =>
        komgaGate.credentials(request) ?? (config.kobo.enabled ? koboCredentials(request) : undefined) ?? kosync?.(request)
    )(config.koreader.enabled ? kosyncCredentials(config.koreader.prefix) : undefined),
    proxyCredentials: proxyCredentials(config.auth.proxy),
  });
  routes = auth.routes;
  keepUnchangedAnswers((request) =>
    request.caller ? `${request.caller.user.id}\0${request.caller.apiKeyId ?? request.caller.tokenId ?? request.caller.method}` : undefined,
  );
  requestMetrics.register(app);
  registerAccessLog(app, { all: config.logging.access_log, slowMs: config.logging.slow_request_ms, redactUrl: redactApiKeys });

  registerHealthRoutes(app, {
    pingDatabase: () => database.ping(),
    checkStorage: () => services.storage.check(),
    libraryProblems: () => services.background.watching.problems(),
  });
  await app.register(
    async (api) => {
      // Uploads (a reading list's .cbl): one file, small, read by the route with request.file().
      await api.register(multipart, { limits: { files: 1, fileSize: UPLOAD_MAX_BYTES, fields: 10, parts: 11 } });
      const v1 = api.withTypeProvider<ZodTypeProvider>();
      registerSetupRoutes(v1, identity.setup, {
        version: API_VERSION,
        registrationEnabled: () => settings.get('registration_enabled'),
        koreaderSyncPath: config.koreader.enabled ? config.koreader.prefix : null,
      });
      registerAuthRoutes(v1, identity.auth, config.server.public_url);
      registerPasswordChangeRoutes(v1, identity.passwordChange);
      registerProxySessionRoutes(v1, identity.proxySessions);
      // Its own scope: the form_post parser it adds must not reach other routes.
      await v1.register(async (scope) => {
        registerOidcRoutes(scope.withTypeProvider<ZodTypeProvider>(), identity.oidc, {
          publicUrl: config.server.public_url,
          passwordSignIn: async () => !(await settings.get('password_sign_in_disabled')),
        });
        registerOidcAdminRoutes(scope.withTypeProvider<ZodTypeProvider>(), identity.oidcProviders, config.server.public_url);
      });
      registerUserRoutes(v1, identity.users);
      registerApiKeyRoutes(v1, identity.apiKeys);
      registerLibraryRoutes(v1, background.libraries);
      registerScanRoutes(v1, background.scans);
      registerWatchRoutes(v1, { watching: background.watching, libraries: background.libraries });
      registerExplainRoutes(v1, services.explain);
      registerTaskRoutes(v1, background.tasks);
      registerSettingsRoutes(v1, settings);
      registerFilesystemRoutes(v1, services.filesystem);
      registerEventRoutes(v1, { bus: events, hub: sse, access: browsing.access, callerAgain: auth.callerAgain });
      registerDuplicateRoutes(v1, services.duplicates);
      registerCollectionRoutes(v1, services.collections);
      registerReadListRoutes(v1, services.readLists);
      registerWantToReadRoutes(v1, services.wantToRead);
      registerOpsRoutes(v1, services.metrics, services.maintenance);
      registerPreferenceRoutes(v1, services.preferences);
      registerDeviceRoutes(v1, services.devices);
      registerKosyncSetupRoute(v1, {
        enabled: config.koreader.enabled,
        prefix: config.koreader.prefix,
        publicUrl: config.server.public_url,
      });
      registerServerAddressesRoute(v1, { publicUrl: config.server.public_url });
      registerKoboRoutes(v1, services.kobo.service, { enabled: config.kobo.enabled, publicUrl: config.server.public_url });
      registerSeriesRoutes(v1, browsing.series, browsing.metadata);
      registerBookRoutes(v1, browsing.books, browsing.metadata);
      registerMetadataRoutes(v1, browsing.metadata);
      registerPageRoutes(v1, browsing.pages);
      registerProgressRoutes(v1, browsing.progress);
      registerStatsRoutes(v1, browsing.stats);
      registerBookResourceRoutes(v1, services.bookResources);
      registerCoverRoutes(v1, services.customCovers);
    },
    { prefix: '/api/v1' },
  );
  // OPDS feeds live at the server root, outside /api/v1, behind the same auth and rate-limit hooks.
  await registerFeeds(
    app,
    {
      libraries: background.libraries,
      ...browsing,
      collections: services.collections,
      readLists: services.readLists,
      wantToRead: services.wantToRead,
    },
    { thumbnailWidth: () => settings.peek('thumbnail_width'), publicUrl: config.server.public_url },
  );
  // The Komga-compatible API under /{prefix}/api/v1 (and v2): off unless the admin setting enables it.
  await registerKomgaApi(app, {
    libraries: background.libraries,
    ...browsing,
    collections: services.collections,
    readLists: services.readLists,
    sessions: services.komgaSessions,
    endSession: (sessionId, until) => identity.auth.endSession(sessionId, until),
  });
  if (config.kobo.enabled)
    registerKoboApi(app, {
      kobo: services.kobo.service,
      ...browsing,
      cacheDir: services.kobo.cacheDir,
      publicUrl: config.server.public_url,
    });
  if (services.kosync) registerKosyncRoutes(app, services.kosync, { prefix: config.koreader.prefix, settings });

  // The web app at `/`, last: its fallback answers only navigations no route above took.
  await registerWebApp(app, { root: options.webAppDir ?? DEFAULT_WEB_APP_DIR, docsPath: config.api.api_docs_path });

  app.addHook('onClose', async () => services.close());
  return app;
}
