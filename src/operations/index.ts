/**
 * Operations: running the server: settings, tasks, health and metrics, maintenance, the live event stream.
 *
 * - settings: administrator settings that override the configuration at run time, with their history.
 * - tasks: task lists, details, statistics, cancel (the queue itself is `src/tasks/`).
 * - server: `/health`, metrics (JSON and Prometheus), free disk space, thumbnail clean-up, the server's addresses.
 * - event-stream: the server-sent event routes over the bus (entity, scan and task streams).
 *
 * The face: what other areas may use of this one.
 */
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
