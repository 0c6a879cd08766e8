import path from 'node:path';
import cors from '@fastify/cors';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Transporter } from 'nodemailer';
import type { Config } from './config/schema.js';
import type { Database } from './db/connection.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/errors.js';
import { httpServerOptions, limitConnectionsPerAddress, throttledPerAddress } from './http/connection-limits.js';
import { API_VERSION, registerOpenApi } from './http/openapi.js';
import './http/route-config.js';
import type { App } from './http/types.js';
import { registerApiKeyRoutes } from './modules/api-keys/routes.js';
import { permissionTable, registerAuthHooks, type RouteAccess } from './modules/auth/hooks.js';
import { createIdentity } from './modules/auth/index.js';
import { registerAuthRoutes } from './modules/auth/routes.js';
import { EventBus } from './events/bus.js';
import { createCatalog, type Catalog } from './modules/libraries/compose.js';
import { registerLibraryRoutes } from './modules/libraries/routes.js';
import { registerFilesystemRoutes } from './modules/filesystem/routes.js';
import { FilesystemService } from './modules/filesystem/service.js';
import { registerHealthRoutes } from './modules/ops/health-routes.js';
import { StorageHealth } from './modules/ops/storage-health.js';
import { createBrowsing, registerBrowsingRoutes } from './modules/books/compose.js';
import { IsolatedRenderer } from './modules/pages/isolated-renderer.js';
import { CoversRepository } from './modules/covers/repository.js';
import { CoverService } from './modules/covers/service.js';
import { MaintenanceService } from './modules/ops/maintenance-service.js';
import { MetricsRepository } from './modules/ops/metrics-repository.js';
import { MetricsService } from './modules/ops/metrics-service.js';
import { registerOpsRoutes } from './modules/ops/routes.js';
import { RequestMetrics } from './http/request-metrics.js';
import { derivedCacheDir } from './data-dir.js';
import { sqlitePathFor } from './db/connection.js';
import { registerDuplicateRoutes } from './modules/duplicates/routes.js';
import { DuplicatesRepository } from './modules/duplicates/repository.js';
import { DuplicatesService } from './modules/duplicates/service.js';
import { registerEventRoutes } from './modules/events/routes.js';
import { SseHub } from './http/sse.js';
import { startPgEventBridge, type EventBridge } from './events/pg-bridge.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerScanRoutes } from './modules/scans/routes.js';
import { registerTaskRoutes } from './modules/tasks/routes.js';
import { registerBookResourceRoutes } from './modules/book-resources/routes.js';
import { BookResourcesService } from './modules/book-resources/service.js';
import { registerPreferenceRoutes } from './modules/preferences/routes.js';
import { PreferencesRepository } from './modules/preferences/repository.js';
import { PreferencesService } from './modules/preferences/service.js';
import { SettingsRepository } from './modules/settings/repository.js';
import { registerSettingsRoutes } from './modules/settings/routes.js';
import { SettingsService } from './modules/settings/service.js';
import { registerSetupRoutes } from './modules/setup/routes.js';
import { registerUserRoutes } from './modules/users/routes.js';
import { registerFeeds } from './feeds/shared/register.js';
import { registerKomgaGate } from './compat/komga/gate.js';
import { registerKomgaApi } from './compat/komga/routes.js';
import { KomgaSessions } from './compat/komga/session.js';
import { resolveJwtSecret } from './modules/auth/jwt-secret.js';
import { KosyncRepository } from './modules/kosync/repository.js';
import { kosyncCredentials, registerKosyncRoutes } from './modules/kosync/routes.js';
import { KosyncService } from './modules/kosync/service.js';
import { DEFAULT_WEB_APP_DIR, registerWebApp } from './http/web-app.js';
import { registerPasswordChangeRoutes } from './modules/auth/password-change.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process event bus (entity, scan and task events). */
    events: EventBus;
    /** Libraries, scanning and tasks; `catalog.start()` starts the background work (server.ts, tests). */
    catalog: Catalog;
    /** Open SSE streams (metrics count them; shutdown closes them). */
    sse: SseHub;
    /** On PostgreSQL: carry bus events to and from other instances (server.ts and tests start it). */
    startEventBridge(): Promise<void>;
  }
}

export interface BuildAppOptions {
  config: Config;
  /** Owned by the app from now on: closed when the app closes. */
  database: Database;
  logger?: FastifyServerOptions['logger'];
  /** Replaces SMTP (tests capture mail with nodemailer's JSON transport). */
  mailTransport?: Transporter;
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
    frameworkErrors: frameworkErrorHandler,
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
    throttledPerAddress((address, open) => app.log.warn({ address, open, max: config.server.max_connections_per_address }, 'connection refused: too many open connections from one address (server.max_connections_per_address)')),
  );

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const storage = new StorageHealth(
    [
      { name: 'data_dir', path: path.resolve(config.data_dir) },
      ...(database.dialect === 'sqlite' && sqlitePathFor(config) !== ':memory:' ? [{ name: 'database', path: path.dirname(path.resolve(sqlitePathFor(config))) }] : []),
    ],
    config.health.min_free_disk_mb * 1024 * 1024,
  );
  registerErrorHandling(app, { onDiskFull: (err) => storage.recordDiskFull(err) });

  const db = database.db;
  database.reportConnectionErrors?.((err) => app.log.warn({ err }, 'database connection lost; the pool opens a new one on demand'));
  const settingsRepo = new SettingsRepository(db);
  const settings = new SettingsService(settingsRepo, config);
  const identity = createIdentity(database, config, app.log, { repo: settingsRepo, service: settings }, options.mailTransport);

  const events = new EventBus((err, event) => app.log.error({ err, event }, 'event listener failed'));
  // PDF and CBR pages and covers, made in worker threads (started on first use), for every feature that shows them.
  const renderer = new IsolatedRenderer();
  app.addHook('onClose', async () => renderer.close());
  const catalog = createCatalog({ database, config, bus: events, log: app.log, taskRetentionDays: () => settings.peek('task_retention_days'), renderer });
  app.decorate('events', events);
  app.decorate('catalog', catalog);
  const duplicates = new DuplicatesService(new DuplicatesRepository(db), catalog.queue);
  catalog.worker.register('detect_duplicates', (ctx) => duplicates.detect(ctx.signal, (update) => ctx.progress(update)));
  const sse = new SseHub(config.events.keepalive_seconds * 1000);
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
  const komgaSessions = new KomgaSessions(() => resolveJwtSecret(config));
  const komgaGate = registerKomgaGate(app, { settings, sessions: komgaSessions });
  ({ routes } = registerAuthHooks(app, {
    resolver: identity.resolver,
    settings,
    isSetupRequired: () => identity.setup.isRequired(),
    extraCredentials: config.koreader.enabled
      ? ((kosync) => (request) => komgaGate.credentials(request) ?? kosync(request))(kosyncCredentials(config.koreader.prefix))
      : komgaGate.credentials,
  }));

  const requestMetrics = new RequestMetrics();
  requestMetrics.register(app);
  const metrics = new MetricsService({
    repo: new MetricsRepository(database, sqlitePathFor(config)),
    requests: requestMetrics,
    version: API_VERSION,
    dialect: database.dialect,
    cacheDir: derivedCacheDir(config),
    sseConnections: () => sse.size,
  });
  app.addHook('onClose', async () => metrics.close());
  const maintenance = new MaintenanceService(db, derivedCacheDir(config));

  const browsing = createBrowsing({ database, config, renderer, thumbnailWidth: () => settings.peek('thumbnail_width') });
  app.addHook('onClose', async () => browsing.close());
  const covers = new CoverService({ repo: new CoversRepository(db), queue: catalog.queue, bus: events, cacheDir: derivedCacheDir(config), width: () => settings.peek('thumbnail_width'), renderer: browsing.renderer });
  catalog.worker.register('generate_thumbnails', (ctx) =>
    covers.generate({ libraryId: ctx.task.library_id ?? undefined, seriesId: ctx.task.target_id ?? undefined }, ctx.signal, (update) => ctx.progress(update)),
  );
  if (config.thumbnails.pregenerate) {
    events.on('scan_completed', (scan) => {
      const changed = scan.books_added + scan.books_updated + scan.books_restored > 0;
      void covers.afterScan(scan.library_id, changed).catch((err: unknown) => app.log.warn({ err }, 'could not queue cover generation'));
    });
  }
  registerHealthRoutes(app, { pingDatabase: () => database.ping(), checkStorage: () => storage.check() });
  await app.register(
    async (api) => {
      const v1 = api.withTypeProvider<ZodTypeProvider>();
      registerSetupRoutes(v1, identity.setup, API_VERSION);
      registerAuthRoutes(v1, identity.auth, config.server.public_url);
      registerPasswordChangeRoutes(v1, identity.passwordChange);
      registerUserRoutes(v1, identity.users);
      registerApiKeyRoutes(v1, identity.apiKeys);
      registerLibraryRoutes(v1, catalog.libraries);
      registerScanRoutes(v1, catalog.scans);
      registerTaskRoutes(v1, catalog.tasks);
      registerSettingsRoutes(v1, settings);
      registerFilesystemRoutes(v1, new FilesystemService(config.libraries.allowed_roots));
      registerEventRoutes(v1, events, sse);
      registerDuplicateRoutes(v1, duplicates);
      registerOpsRoutes(v1, metrics, maintenance);
      registerPreferenceRoutes(v1, new PreferencesService(new PreferencesRepository(db)));
      registerBrowsingRoutes(v1, browsing);
      registerBookResourceRoutes(v1, new BookResourcesService(browsing.pages, browsing.progress));
    },
    { prefix: '/api/v1' },
  );
  // OPDS feeds live at the server root, outside /api/v1, behind the same auth and rate-limit hooks.
  await registerFeeds(app, { libraries: catalog.libraries, ...browsing }, { thumbnailWidth: () => settings.peek('thumbnail_width'), publicUrl: config.server.public_url });
  // The Komga-compatible API under /{prefix}/api/v1 (and v2): off unless the admin setting enables it.
  await registerKomgaApi(app, {
    libraries: catalog.libraries,
    ...browsing,
    sessions: komgaSessions,
    endSession: (sessionId, until) => identity.auth.endSession(sessionId, until),
  });
  if (config.koreader.enabled) {
    registerKosyncRoutes(app, new KosyncService(new KosyncRepository(database), browsing.progress), { prefix: config.koreader.prefix, settings });
  }

  // The web app at `/`, last: its fallback answers only navigations no route above took.
  await registerWebApp(app, { root: options.webAppDir ?? DEFAULT_WEB_APP_DIR, docsPath: config.api.api_docs_path });

  app.addHook('onClose', async () => {
    await catalog.stop();
    await database.close();
  });
  return app;
}
