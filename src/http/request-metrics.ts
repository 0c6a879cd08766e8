import type { FastifyInstance } from 'fastify';

const WINDOW = 1000;

interface RouteStats {
  count: number;
  errors: number;
  /** The last WINDOW durations (ms), a ring buffer: percentiles describe recent traffic. */
  samples: Float64Array;
  next: number;
}

export interface RouteLatency {
  route: string;
  count: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

/** Counts and times every response by route pattern (never by raw URL, so ids do not explode the map). */
export class RequestMetrics {
  private readonly routes = new Map<string, RouteStats>();
  private readonly listeners: Array<(method: string, route: string, status: number, ms: number) => void> = [];
  total = 0;
  readonly byStatusClass: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };

  register(app: FastifyInstance): void {
    // Callback style: every response passes here, and an async hook costs each of them a promise.
    app.addHook('onResponse', (request, reply, done) => {
      const route = `${request.method} ${request.routeOptions.url ?? '(unmatched)'}`;
      this.record(request.method, route, reply.statusCode, reply.elapsedTime);
      done();
    });
  }

  onRecord(listener: (method: string, route: string, status: number, ms: number) => void): void {
    this.listeners.push(listener);
  }

  record(method: string, route: string, status: number, ms: number): void {
    this.total += 1;
    const cls = `${Math.floor(status / 100)}xx`;
    this.byStatusClass[cls] = (this.byStatusClass[cls] ?? 0) + 1;
    let stats = this.routes.get(route);
    if (!stats) {
      stats = { count: 0, errors: 0, samples: new Float64Array(WINDOW), next: 0 };
      this.routes.set(route, stats);
    }
    stats.count += 1;
    if (status >= 500) stats.errors += 1;
    stats.samples[stats.next % WINDOW] = ms;
    stats.next += 1;
    for (const l of this.listeners) l(method, route, status, ms);
  }

  latencies(): RouteLatency[] {
    return [...this.routes.entries()]
      .map(([route, s]) => {
        const sorted = Array.from(s.samples.subarray(0, Math.min(s.next, WINDOW))).sort((a, b) => a - b);
        const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
        return { route, count: s.count, errors: s.errors, p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99) };
      })
      .sort((a, b) => b.count - a.count);
  }
}

const round = (n: number) => Math.round(n * 100) / 100;
