import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type client from 'prom-client';
import { derivedCacheStats } from '../../media/rendering/derived-cache.js';
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

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Request durations by label set, kept while prom-client is not loaded: per histogram bucket (the last one is
 * +Inf) how many fell in it and their sum. Replayed into the histogram when it is built, as `count` observations
 * of the bucket's mean (which lies in the bucket), so its buckets, count and sum come out as if observed live.
 */
interface PendingDurations {
  labels: { method: string; route: string; status: string };
  counts: number[];
  sums: number[];
}

/** Past this many requests before the first scrape, prom-client is loaded anyway so the replay stays short. */
const MAX_PENDING_REQUESTS = 10_000;

interface Prometheus {
  registry: client.Registry;
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
}

/**
 * Operator metrics: a JSON snapshot for humans and dashboards, Prometheus text for scrapers. prom-client (~0.4 s
 * and ~10 MB at start) is loaded at the first scrape; until then request durations are kept in buckets of our
 * own, so the HTTP histogram counts every request since start. The catalog, task, cache and SSE figures are read
 * at each scrape anyway. prom-client's default process metrics are read from the process at each scrape too,
 * except its GC-duration histogram and event-loop-lag figures, which cover the time since the first scrape.
 */
export class MetricsService {
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private cacheScan: { at: number; value: { files: number; size_bytes: number } } | undefined;
  private prometheusClient: Promise<Prometheus> | undefined;
  private httpDuration: client.Histogram<'method' | 'route' | 'status'> | undefined;
  private readonly pending = new Map<string, PendingDurations>();
  private pendingRequests = 0;

  constructor(private readonly deps: MetricsDeps) {
    this.loopDelay.enable();
    deps.requests.onRecord((method, route, status, ms) => {
      const labels = { method, route: route.slice(method.length + 1), status: String(status) };
      if (this.httpDuration) this.httpDuration.observe(labels, ms / 1000);
      else this.keepDuration(labels, ms / 1000);
    });
  }

  private keepDuration(labels: PendingDurations['labels'], seconds: number): void {
    const key = `${labels.method} ${labels.status} ${labels.route}`;
    let durations = this.pending.get(key);
    if (!durations) {
      durations = {
        labels,
        counts: new Array<number>(HTTP_BUCKETS.length + 1).fill(0),
        sums: new Array<number>(HTTP_BUCKETS.length + 1).fill(0),
      };
      this.pending.set(key, durations);
    }
    let bucket = HTTP_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket < 0) bucket = HTTP_BUCKETS.length;
    durations.counts[bucket]! += 1;
    durations.sums[bucket]! += seconds;
    this.pendingRequests += 1;
    if (this.pendingRequests >= MAX_PENDING_REQUESTS) void this.prometheus$().catch(() => undefined);
  }

  private prometheus$(): Promise<Prometheus> {
    this.prometheusClient ??= import('prom-client').then(
      async ({ default: prom }) => {
        const built = this.buildRegistry(prom);
        // prom-client's event-loop monitor samples every 10 ms from now: without one sample its figures read NaN.
        await new Promise((resolve) => setTimeout(resolve, 30));
        return built;
      },
      (err: unknown) => {
        this.prometheusClient = undefined;
        throw err;
      },
    );
    return this.prometheusClient;
  }

  private buildRegistry(prom: typeof client): Prometheus {
    const { deps } = this;
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry, prefix: 'colophon_' });
    const httpDuration = new prom.Histogram({
      name: 'colophon_http_request_duration_seconds',
      help: 'HTTP request duration by route pattern',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers: [registry],
    });
    for (const { labels, counts, sums } of this.pending.values()) {
      for (let bucket = 0; bucket < counts.length; bucket++) {
        const mean = sums[bucket]! / counts[bucket]!;
        for (let i = 0; i < counts[bucket]!; i++) httpDuration.observe(labels, mean);
      }
    }
    this.pending.clear();
    this.pendingRequests = 0;
    this.httpDuration = httpDuration;
    const gauge = (name: string, help: string, labelNames: string[], collect: (g: client.Gauge) => Promise<void>) =>
      new prom.Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          await collect(this);
        },
      });
    gauge('colophon_catalog_items', 'Libraries, series, books and pages in the catalog', ['kind'], async (g) => {
      const counts = await deps.repo.catalogCounts();
      for (const [kind, n] of Object.entries(counts)) g.set({ kind }, n);
    });
    gauge('colophon_tasks', 'Background tasks by status', ['status'], async (g) => {
      const tasks = await deps.repo.taskCounts();
      for (const [status, n] of Object.entries(tasks.by_status)) g.set({ status }, n);
    });
    gauge('colophon_database_size_bytes', 'Database size on disk', [], async (g) => g.set(await deps.repo.databaseSize()));
    gauge('colophon_cache_size_bytes', 'Derived image cache size on disk', [], async (g) => g.set((await this.cacheSize()).size_bytes));
    new prom.Counter({
      name: 'colophon_derived_cache_lookups_total',
      help: 'Derived image (thumbnail, resized page) lookups by result',
      labelNames: ['result'],
      registers: [registry],
      collect() {
        const { hits, misses } = derivedCacheStats();
        this.reset();
        this.inc({ result: 'hit' }, hits);
        this.inc({ result: 'miss' }, misses);
      },
    });
    gauge('colophon_sse_connections', 'Open server-sent event streams', [], async (g) => g.set(deps.sseConnections()));
    return { registry, httpDuration };
  }

  async snapshot(): Promise<MetricsSnapshot> {
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    const [catalog, tasks, dbSize, cache] = await Promise.all([
      this.deps.repo.catalogCounts(),
      this.deps.repo.taskCounts(),
      this.deps.repo.databaseSize(),
      this.cacheSize(),
    ]);
    const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
    return {
      version: this.deps.version,
      uptime_seconds: Math.round(process.uptime()),
      node_version: process.version,
      process: {
        memory: { rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed, heap_total_bytes: mem.heapTotal, external_bytes: mem.external },
        cpu: { user_seconds: cpu.user / 1e6, system_seconds: cpu.system / 1e6 },
        event_loop_delay_ms: {
          p50: ms(this.loopDelay.percentile(50)),
          p99: ms(this.loopDelay.percentile(99)),
          max: ms(this.loopDelay.max),
        },
      },
      requests: {
        total: this.deps.requests.total,
        by_status_class: { ...this.deps.requests.byStatusClass },
        by_route: this.deps.requests.latencies(),
      },
      tasks: { ...tasks, queue_depth: tasks.by_status.pending ?? 0 },
      catalog,
      database: { type: this.deps.dialect, size_bytes: dbSize },
      cache: { ...cache, ...cacheLookups(), hit_ratio: hitRatio() },
      sse_connections: this.deps.sseConnections(),
    };
  }

  async prometheus(): Promise<string> {
    return (await this.prometheus$()).registry.metrics();
  }

  /** prom-client's Registry.PROMETHEUS_CONTENT_TYPE (the default registry's), known before prom-client is loaded. */
  get prometheusContentType(): string {
    return 'text/plain; version=0.0.4; charset=utf-8';
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
