import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import * as catalog from './catalog/index.js';
import type { Config } from './config/schema.js';
import type { Database } from './db/connection.js';
import { DatabaseOutageReporter } from './db/outage-reporter.js';
import { derivedCacheDir } from './data-dir.js';
import { EventBus } from './events/bus.js';
import type { AreaWiring } from './http/area.js';
import type { RequestMetrics } from './http/request-metrics.js';
import { SseHub } from './http/sse.js';
import * as identity from './identity/index.js';
import * as libraries from './libraries/index.js';
import * as lists from './lists/index.js';
import { IsolatedRenderer } from './media/analysis/isolated-renderer.js';
import * as operations from './operations/index.js';
import * as protocols from './protocols/index.js';
import * as reading from './reading/index.js';
import { tightHeapGrowthWhileBusy } from './tasks/heap-growth.js';
import { TaskQueue } from './tasks/queue.js';
import { Scheduler } from './tasks/scheduler.js';
import { TaskWorker } from './tasks/worker.js';

/**
 * The composition root: builds the machinery every area shares (bus, task queue, worker, scheduler, renderer
 * threads, SSE hub), then each area by its face's compose(), in the order their services need each other, and
 * loops over what they hand back: task handlers and listeners here, routes in app.ts. No area constructs another.
 *
 * Nothing here runs until `background.start()` (server.ts calls it; tests call it when they need the worker),
 * so building the app for `colophon openapi` starts no thread or timer.
 */

/** Libraries, scanning and the task machinery; `start()` starts the background work. */
export interface Background {
  queue: TaskQueue;
  worker: TaskWorker;
  scheduler: Scheduler;
  scanner: libraries.LibrariesServices['scanner'];
  libraries: libraries.LibrariesServices['libraries'];
  scans: libraries.LibrariesServices['scans'];
  tasks: operations.OperationsServices['tasks'];
  /** Folder watching (scanning_config.watch): targeted scans of changed folders. */
  watching: libraries.LibrariesServices['watching'];
  /**
   * Starts background work: task worker (recovering abandoned tasks), cron schedules, scan_on_start scans, watching.
   * A `web` instance (server.role) starts none of it: what it queues is a worker's to run.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface Services {
  events: EventBus;
  sse: SseHub;
  settings: operations.SettingsService;
  identity: identity.IdentityServices;
  background: Background;
  storage: operations.OperationsServices['storage'];
  /** Counts what a database outage refuses and logs the outage in a few lines (db/outage-reporter.ts). */
  outage: DatabaseOutageReporter;
  /** Every area's routes, task handlers and listeners, in the order of composition. */
  wiring: ReadonlyArray<AreaWiring<identity.Credentials>>;
  /** Stops the background work and closes every pool, thread and the database, in that order. */
  close(): Promise<void>;
}

export interface CompositionDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  /** Replaces SMTP (tests capture mail with nodemailer's JSON transport). */
  mailTransport?: Transporter;
  /** The HTTP layer's counters, for the metrics endpoint. */
  requests: RequestMetrics;
  /** Tighter heap growth while background tasks run (the process-wide V8 flag; `colophon serve` only). */
  tuneHeapForTasks?: boolean;
}

export function composeServices(deps: CompositionDeps): Services {
  const { config, database, log } = deps;
  const cacheDir = derivedCacheDir(config);
  const bus = new EventBus((err, event) => log.error({ err, event }, 'event listener failed'));
  const outage = new DatabaseOutageReporter({ logger: log, probe: () => database.ping() });
  const sse = new SseHub(config.events.keepalive_seconds * 1000);
  // PDF and CBR pages and covers, made in worker threads (started on first use), for every area that shows them.
  const renderer = new IsolatedRenderer();
  const queue = new TaskQueue(database);
  const worker = new TaskWorker(queue, bus, {
    concurrency: config.tasks.concurrency,
    pollIntervalMs: config.tasks.poll_interval_ms,
    // SQLite belongs to this one process: whatever is `running` at start was left by a dead process.
    recoverAllOnStart: database.dialect === 'sqlite',
    logger: log,
    onDatabaseUnavailable: (err) => outage.refused(err, 'task'),
    ...(deps.tuneHeapForTasks ? { onBusyChange: tightHeapGrowthWhileBusy } : {}),
    lightTypes: [catalog.IDENTIFY_TASK],
  });
  const scheduler = new Scheduler((err, key) => log.error({ err, job: key }, 'scheduled job failed'));

  const { settings, markers } = operations.composeSettings(database, config);
  const thumbnailWidth = () => settings.peek('thumbnail_width');
  // The catalog is drawn from by reading (covers come from pages) and written to by the scanner: both are composed
  // after it, so it asks for them when used.
  let late: { reading?: reading.ReadingServices; libraries?: libraries.LibrariesServices } = {};
  const composedCatalog = catalog.compose({
    config,
    database,
    log,
    bus,
    queue,
    renderer,
    cacheDir,
    thumbnailWidth,
    scheduler,
    autoThreshold: () => settings.peek('metadata_auto_threshold'),
    responses: () => deps.requests.total,
    reading: () => late.reading!,
    reanalyze: (libraryId, bookIds, signal) => late.libraries!.scanner.analyzeBooks(libraryId, bookIds, signal),
  });
  const { access } = composedCatalog.services;
  const composedLibraries = libraries.compose({
    config,
    database,
    log,
    bus,
    queue,
    worker,
    scheduler,
    renderer,
    access,
    autoThreshold: () => settings.peek('metadata_auto_threshold'),
    uploadMaxBytes: () => settings.peek('inbox_upload_max_mb') * 1024 * 1024,
    carryProgress: (from, to) => late.reading!.progress.carryOver(from, to),
    identifyOnline: (title, year) => composedCatalog.services.identify.lookup(title, year),
  });
  const composedReading = reading.compose({
    config,
    database,
    renderer,
    cacheDir,
    thumbnailWidth,
    bookRows: composedCatalog.services.bookRows,
    books: composedCatalog.services.books,
    access,
  });
  late = { reading: composedReading.services, libraries: composedLibraries.services };
  const { directory, watching } = composedLibraries.services;
  const composedIdentity = identity.compose({
    config,
    database,
    log,
    mailTransport: deps.mailTransport,
    settings,
    markers,
    libraries: directory,
  });
  const { series, books } = composedCatalog.services;
  const composedLists = lists.compose({ database, log, bus, access, series, books });
  const composedOperations = operations.compose({
    config,
    database,
    bus,
    settings,
    queue,
    worker,
    cacheDir,
    requests: deps.requests,
    sse,
    access,
    callerAgain: composedIdentity.services.callerAgain,
    libraryRoot: directory.root,
    libraryProblems: () => watching.problems(),
    scheduler,
  });
  const composedProtocols = protocols.compose({
    config,
    database,
    log,
    settings,
    libraries: composedLibraries.services.libraries,
    series,
    books,
    metadata: composedCatalog.services.metadata,
    pages: composedReading.services.pages,
    progress: composedReading.services.progress,
    deliveries: composedReading.services.deliveries,
    ...composedLists.services,
    endSession: (sessionId, until) => composedIdentity.services.auth.endSession(sessionId, until),
    preferences: composedIdentity.services.preferences,
    callerOfUser: (id) => composedIdentity.services.resolver.ofUser(id),
  });

  // The order routes are registered in (and the OpenAPI document lists them in).
  const wiring: Array<AreaWiring<identity.Credentials>> = [
    composedIdentity.wiring,
    composedLibraries.wiring,
    composedOperations.wiring,
    composedCatalog.wiring,
    composedLists.wiring,
    composedReading.wiring,
    composedProtocols.wiring,
  ];
  for (const area of wiring) {
    for (const [type, handler] of Object.entries(area.tasks ?? {})) worker.register(type, handler);
    area.listen?.(bus);
  }

  let pruneTimer: NodeJS.Timeout | undefined;
  const pruneTasks = async () => {
    const days = settings.peek('task_retention_days');
    const removed = await queue.pruneFinished(new Date(Date.now() - days * 86_400_000).toISOString());
    if (removed > 0) log.info({ removed, days }, 'pruned finished tasks');
  };
  const background: Background = {
    queue,
    worker,
    scheduler,
    scanner: composedLibraries.services.scanner,
    libraries: composedLibraries.services.libraries,
    scans: composedLibraries.services.scans,
    tasks: composedOperations.services.tasks,
    watching,
    async start() {
      if (config.server.role === 'web') return;
      await worker.start();
      scheduler.start();
      for (const area of wiring) await area.start?.();
      // Finished tasks accumulate with every scan; prune them at start and then hourly.
      void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed'));
      pruneTimer = setInterval(() => void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed')), 3_600_000);
      pruneTimer.unref();
    },
    async stop() {
      for (const area of [...wiring].reverse()) await area.stop?.();
      clearInterval(pruneTimer);
      scheduler.stop();
      await worker.stop();
      for (const area of wiring) await area.release?.();
    },
  };

  return {
    events: bus,
    sse,
    settings,
    identity: composedIdentity.services,
    background,
    storage: composedOperations.services.storage,
    outage,
    wiring,
    async close() {
      outage.close();
      await background.stop();
      for (const area of wiring) await area.close?.();
      await renderer.close();
      await database.close();
    },
  };
}
