import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import client from 'prom-client';
import { derivedCacheStats } from '../../media/derived-cache.js';
import type { RequestMetrics, RouteLatency } from '../../http/request-metrics.js';
import type { CatalogCounts, MetricsRepository } from './metrics-repository.js';

export interface MetricsSnapshot {
  version: string;
  uptime_seconds: number;
  node_version: string;
  process: {
    memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number; external_bytes: number };
    cpu: { user_seconds: number; system_seconds: number };
    event_loop_delay_ms: { p50: number; p99: number; max: number };
  };
  requests: { total: number; by_status_class: Record<string, number>; by_route: RouteLatency[] };
  tasks: { by_status: Record<string, number>; queue_depth: number; finished_last_hour: number; failed_last_hour: number };
  catalog: CatalogCounts;
  database: { type: string; size_bytes: number };
  cache: { files: number; size_bytes: number; hits: number; misses: number; hit_ratio: number | null };
  sse_connections: number;
}

export interface MetricsDeps {
  repo: MetricsRepository;
  requests: RequestMetrics;
  version: string;
  dialect: string;
  cacheDir: string;
  sseConnections(): number;
}

const CACHE_SCAN_TTL_MS = 60_000;

/** Operator metrics: a JSON snapshot for humans and dashboards, Prometheus text for scrapers. */
export class MetricsService {
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private cacheScan: { at: number; value: { files: number; size_bytes: number } } | undefined;
  private readonly registry = new client.Registry();
  private readonly httpDuration: client.Histogram<'method' | 'route' | 'status'>;

  constructor(private readonly deps: MetricsDeps) {
    this.loopDelay.enable();
    client.collectDefaultMetrics({ register: this.registry, prefix: 'bindery_' });
    this.httpDuration = new client.Histogram({
      name: 'bindery_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    deps.requests.onRecord((method, route, status, ms) => this.httpDuration.observe({ method, route: route.slice(method.length + 1), status: String(status) }, ms / 1000));
    const gauge = (name: string, help: string, labelNames: string[], collect: (g: client.Gauge) => Promise<void>) =>
      new client.Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          await collect(this);
        },
      });
    gauge('bindery_catalog_items', 'Libraries, series, books and pages in the catalog', ['kind'], async (g) => {
      const counts = await deps.repo.catalogCounts();
      for (const [kind, n] of Object.entries(counts)) g.set({ kind }, n);
    });
    gauge('bindery_tasks', 'Background tasks by status', ['status'], async (g) => {
      const tasks = await deps.repo.taskCounts();
      for (const [status, n] of Object.entries(tasks.by_status)) g.set({ status }, n);
    });
    gauge('bindery_database_size_bytes', 'Database size on disk', [], async (g) => g.set(await deps.repo.databaseSize()));
    gauge('bindery_cache_size_bytes', 'Derived image cache size on disk', [], async (g) => g.set((await this.cacheSize()).size_bytes));
    new client.Counter({
      name: 'bindery_derived_cache_lookups_total',
      help: 'Derived image (thumbnail, resized page) lookups by result',
      labelNames: ['result'],
      registers: [this.registry],
      collect() {
        const { hits, misses } = derivedCacheStats();
        this.reset();
        this.inc({ result: 'hit' }, hits);
        this.inc({ result: 'miss' }, misses);
      },
    });
    gauge('bindery_sse_connections', 'Open server-sent event streams', [], async (g) => g.set(deps.sseConnections()));
  }

  async snapshot(): Promise<MetricsSnapshot> {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    const [catalog, tasks, dbSize, cache] = await Promise.all([this.deps.repo.catalogCounts(), this.deps.repo.taskCounts(), this.deps.repo.databaseSize(), this.cacheSize()]);
    const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
    return {
      version: this.deps.version,
      uptime_seconds: Math.round(process.uptime()),
      node_version: process.version,
      process: {
        memory: { rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed, heap_total_bytes: mem.heapTotal, external_bytes: mem.external },
        cpu: { user_seconds: cpu.user / 1e6, system_seconds: cpu.system / 1e6 },
        event_loop_delay_ms: { p50: ms(this.loopDelay.percentile(50)), p99: ms(this.loopDelay.percentile(99)), max: ms(this.loopDelay.max) },
      },
      requests: { total: this.deps.requests.total, by_status_class: { ...this.deps.requests.byStatusClass }, by_route: this.deps.requests.latencies() },
      tasks: { ...tasks, queue_depth: tasks.by_status.pending ?? 0 },
      catalog,
      database: { type: this.deps.dialect, size_bytes: dbSize },
      cache: { ...cache, ...cacheLookups(), hit_ratio: hitRatio() },
      sse_connections: this.deps.sseConnections(),
    };
  }

  prometheus(): Promise<string> {
    return this.registry.metrics();
  }

  get prometheusContentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    this.loopDelay.disable();
  }

  /** Walking the cache costs a directory read per book; once a minute is plenty for a gauge. */
  private async cacheSize(): Promise<{ files: number; size_bytes: number }> {
    if (this.cacheScan && Date.now() - this.cacheScan.at < CACHE_SCAN_TTL_MS) return this.cacheScan.value;
    const value = await folderSize(this.deps.cacheDir);
    this.cacheScan = { at: Date.now(), value };
    return value;
  }

  invalidateCacheSize(): void {
    this.cacheScan = undefined;
  }
}

const cacheLookups = () => derivedCacheStats();

function hitRatio(): number | null {
  const { hits, misses } = derivedCacheStats();
  return hits + misses === 0 ? null : Math.round((hits / (hits + misses)) * 1000) / 1000;
}

async function folderSize(dir: string): Promise<{ files: number; size_bytes: number }> {
  let files = 0;
  let size = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const sub = await folderSize(full);
      files += sub.files;
      size += sub.size_bytes;
    } else if (entry.isFile()) {
      files += 1;
      size += (await stat(full).catch(() => ({ size: 0 }))).size;
    }
  }
  return { files, size_bytes: size };
}
