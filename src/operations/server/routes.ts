import { z } from 'zod';
import type { App } from '../../http/types.js';
import type { MaintenanceService } from './maintenance-service.js';
import type { MetricsService } from './metrics-service.js';

const Metrics = z
  .object({
    version: z.string(),
    uptime_seconds: z.number(),
    node_version: z.string(),
    process: z.object({
      memory: z.object({ rss_bytes: z.number(), heap_used_bytes: z.number(), heap_total_bytes: z.number(), external_bytes: z.number() }),
      cpu: z.object({ user_seconds: z.number(), system_seconds: z.number() }),
      event_loop_delay_ms: z.object({ p50: z.number(), p99: z.number(), max: z.number() }),
    }),
    requests: z.object({
      total: z.number().int(),
      by_status_class: z.record(z.string(), z.number()),
      by_route: z
        .array(
          z.object({
            route: z.string(),
            count: z.number().int(),
            errors: z.number().int(),
            p50_ms: z.number(),
            p95_ms: z.number(),
            p99_ms: z.number(),
          }),
        )
        .describe('Latency percentiles over the last 1000 requests of each route.'),
    }),
    tasks: z.object({
      by_status: z.record(z.string(), z.number()),
      queue_depth: z.number().int(),
      finished_last_hour: z.number().int(),
      failed_last_hour: z.number().int(),
    }),
    catalog: z.object({
      libraries: z.number().int(),
      series: z.number().int(),
      books: z.number().int(),
      pages: z.number().int(),
      books_with_errors: z.number().int(),
    }),
    database: z.object({ type: z.string(), size_bytes: z.number() }),
    cache: z
      .object({
        files: z.number().int(),
        size_bytes: z.number(),
        hits: z.number().int(),
        misses: z.number().int(),
        hit_ratio: z.number().nullable(),
      })
      .describe(
        "Derived images (thumbnails, resized pages): files and bytes on disk (refreshed at most once a minute), and this process's lookups since start.",
      ),
    sse_connections: z.number().int(),
  })
  .meta({ id: 'Metrics' });

const CleanupResult = z
  .object({
    orphaned_hashes: z.number().int(),
    files_removed: z.number().int(),
    bytes_freed: z.number().int(),
    kept_hashes: z.number().int(),
  })
  .meta({ id: 'ThumbnailCleanup' });

export function registerOpsRoutes(app: App, metrics: MetricsService, maintenance: MaintenanceService): void {
  app.route({
    method: 'GET',
    url: '/metrics',
    config: { permission: 'system-health' },
    schema: { summary: 'Server metrics as JSON', tags: ['ops'], response: { 200: Metrics } },
    handler: () => metrics.snapshot(),
  });

  app.route({
    method: 'GET',
    url: '/metrics/prometheus',
    config: { permission: 'system-health' },
    schema: { summary: 'Server metrics in Prometheus text format', tags: ['ops'], produces: ['text/plain'] },
    handler: async (_req, reply) => reply.type(metrics.prometheusContentType).send(await metrics.prometheus()),
  });

  app.route({
    method: 'POST',
    url: '/maintenance/cleanup-thumbnails',
    config: { permission: 'system-admin' },
    schema: {
      summary: 'Remove orphaned thumbnails (admin)',
      description:
        'Removes cached thumbnails and resized pages whose book no longer exists (soft-deleted books keep theirs). Returns counts and bytes freed.',
      tags: ['ops'],
      response: { 200: CleanupResult },
    },
    handler: async () => {
      const result = await maintenance.cleanupThumbnails();
      metrics.invalidateCacheSize();
      return result;
    },
  });
}
