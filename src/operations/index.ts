/**
 * Operations: running the server: settings, tasks, health and metrics, maintenance, the live event stream.
 *
 * - settings: administrator settings that override the configuration at run time, with their history.
 * - tasks: task lists, details, statistics, cancel (the queue itself is `src/tasks/`).
 * - server: `/health`, metrics (JSON and Prometheus), free disk space, thumbnail clean-up, the server's addresses.
 * - event-stream: the server-sent event routes over the bus (entity, scan and task streams).
 * - backups: `colophon backup`/`restore`/`copy`, and Administration → Backups (now, on a schedule, kept, downloaded).
 *
 * The face: what other areas may use of this one.
 */
export { backupCommand, copyCommand, EXIT as BACKUP_EXIT, failure as backupFailure, restoreCommand } from './backups/commands.js';
export { registerEventRoutes } from './event-stream/routes.js';
export { registerServerAddressesRoute } from './server/addresses-routes.js';
export { registerHealthRoutes } from './server/health-routes.js';
export { MaintenanceRepository } from './server/maintenance-repository.js';
export { MaintenanceService } from './server/maintenance-service.js';
export { MetricsRepository } from './server/metrics-repository.js';
export { MetricsService } from './server/metrics-service.js';
export { registerOpsRoutes } from './server/routes.js';
export { StorageHealth } from './server/storage-health.js';
export { SettingsRepository } from './settings/repository.js';
export { registerSettingsRoutes } from './settings/routes.js';
export { SettingsService } from './settings/service.js';
export { registerTaskRoutes } from './tasks/routes.js';
export { TaskView, taskView } from './tasks/schemas.js';
export { TaskService, cancelTask } from './tasks/service.js';

import path from 'node:path';
import type { Config } from '../config/schema.js';
import { sqlitePathFor, type Database } from '../db/connection.js';
import type { EventBus } from '../events/bus.js';
import type { ComposedArea } from '../http/area.js';
import { API_VERSION } from '../http/openapi.js';
import type { RequestMetrics } from '../http/request-metrics.js';
import type { SseHub } from '../http/sse.js';
import type { AccessService, CallerAgain } from '../identity/index.js';
import type { TaskQueue } from '../tasks/queue.js';
import type { Scheduler } from '../tasks/scheduler.js';
import { registerBackupRoutes, registerSetupRestoreRoute } from './backups/routes.js';
import { BACKUP_TASK, ScheduledBackups } from './backups/scheduled.js';
import type { TaskWorker } from '../tasks/worker.js';
import { registerEventRoutes } from './event-stream/routes.js';
import { registerServerAddressesRoute } from './server/addresses-routes.js';
import { registerHealthRoutes } from './server/health-routes.js';
import { MaintenanceRepository } from './server/maintenance-repository.js';
import { MaintenanceService } from './server/maintenance-service.js';
import { MetricsRepository } from './server/metrics-repository.js';
import { MetricsService } from './server/metrics-service.js';
import { registerOpsRoutes } from './server/routes.js';
import { StorageHealth } from './server/storage-health.js';
import { SettingsRepository } from './settings/repository.js';
import { registerSettingsRoutes } from './settings/routes.js';
import { SettingsService } from './settings/service.js';
import { registerTaskRoutes } from './tasks/routes.js';
import { TaskService } from './tasks/service.js';

/**
 * Settings come first of all: every area reads them. `markers` are the settings table's one-time markers (the first
 * administrator is made once).
 */
export function composeSettings(database: Database, config: Config): { settings: SettingsService; markers: SettingsRepository } {
  const markers = new SettingsRepository(database.db);
  return { settings: new SettingsService(markers, config), markers };
}

export interface OperationsDeps {
  config: Config;
  database: Database;
  bus: EventBus;
  settings: SettingsService;
  queue: TaskQueue;
  worker: TaskWorker;
  cacheDir: string;
  /** The HTTP layer's counters and open SSE streams, for the metrics endpoint. */
  requests: RequestMetrics;
  sse: SseHub;
  /** Who may hear which event (the catalog's access rules), and a stream's caller as the database says now. */
  access: AccessService;
  callerAgain: CallerAgain;
  /** A library's folder: task answers name files relative to it for callers who do not manage libraries. */
  libraryRoot: (libraryId: string) => Promise<string | undefined>;
  /** Libraries whose folder is missing or whose watching failed, in sentences (`/health`). */
  libraryProblems: () => string[];
  scheduler: Scheduler;
}

export interface OperationsServices {
  tasks: TaskService;
  storage: StorageHealth;
  metrics: MetricsService;
  maintenance: MaintenanceService;
}

export function compose(deps: OperationsDeps): ComposedArea<OperationsServices> {
  const { config, database, settings } = deps;
  const tasks = new TaskService(deps.queue, deps.worker, deps.libraryRoot);
  const storage = new StorageHealth(
    [
      { name: 'data_dir', path: path.resolve(config.data_dir) },
      ...(database.dialect === 'sqlite' && sqlitePathFor(config) !== ':memory:'
        ? [{ name: 'database', path: path.dirname(path.resolve(sqlitePathFor(config))) }]
        : []),
    ],
    config.health.min_free_disk_mb * 1024 * 1024,
  );
  const metrics = new MetricsService({
    repo: new MetricsRepository(database, sqlitePathFor(config)),
    requests: deps.requests,
    version: API_VERSION,
    dialect: database.dialect,
    cacheDir: deps.cacheDir,
    sseConnections: () => deps.sse.size,
  });
  const maintenance = new MaintenanceService(new MaintenanceRepository(database.db), deps.cacheDir);
  const backups = new ScheduledBackups({ config, database, settings, queue: deps.queue, scheduler: deps.scheduler });
  return {
    services: { tasks, storage, metrics, maintenance },
    wiring: {
      api: [
        (v1) => registerTaskRoutes(v1, tasks),
        (v1) => registerSettingsRoutes(v1, settings),
        (v1) => registerEventRoutes(v1, { bus: deps.bus, hub: deps.sse, access: deps.access, callerAgain: deps.callerAgain }),
        (v1) => registerOpsRoutes(v1, metrics, maintenance),
        (v1) => registerServerAddressesRoute(v1, { publicUrl: config.server.public_url }),
        (v1) => registerBackupRoutes(v1, backups),
        (v1) => registerSetupRestoreRoute(v1, backups),
      ],
      tasks: { [BACKUP_TASK]: (ctx) => backups.run(ctx) },
      start: async () => {
        await backups.sweep();
        backups.sync();
        settings.onChange((key) => {
          if (key.startsWith('backup_')) backups.sync();
        });
      },
      root: [
        (app) =>
          registerHealthRoutes(app, {
            pingDatabase: () => database.ping(),
            checkStorage: () => storage.check(),
            libraryProblems: deps.libraryProblems,
            otherProblems: () => (backups.lastFailure ? [backups.lastFailure.message] : []),
          }),
      ],
      close: () => metrics.close(),
    },
  };
}
