import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCacheDir } from '../../src/data-dir.js';
import { cachedPath, getOrCreateCached } from '../../src/media/rendering/derived-cache.js';
import type { MetricsSnapshot } from '../../src/operations/server/metrics-service.js';
import { makeCbz } from '../media/fixtures.js';
import { adminHeaders, createUser } from '../helpers/auth.js';
import { createTestApp } from '../helpers/app.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  await makeCbz(dir, 'One 001.cbz', { pages: 3 });
  await makeCbz(dir, 'One 002.cbz', { pages: 2 });
  await scan(t, (await createLibrary(t, dir)).id);
});
afterAll(() => t.close());

describe('GET /metrics (needs system-health)', () => {
  it('returns uptime, version, process, requests by route, tasks, catalog counts, database and cache sizes, SSE connections', async () => {
    await api(t, 'GET', '/api/v1/libraries');
    const res = await api<MetricsSnapshot>(t, 'GET', '/api/v1/metrics');
    expect(res.status).toBe(200);
    const m = res.body;
    expect(m.version).toBe('2.5.0');
    expect(m.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(m.process.memory.rss_bytes).toBeGreaterThan(0);
    expect(m.catalog).toMatchObject({ libraries: 1, books: 2, pages: 5, books_with_errors: 0 });
    expect(m.catalog.series).toBeGreaterThanOrEqual(1);
    expect(m.tasks.by_status.completed).toBeGreaterThanOrEqual(1);
    expect(m.tasks.queue_depth).toBe(0);
    expect(m.database.size_bytes).toBeGreaterThan(0);
    expect(m.requests.total).toBeGreaterThan(0);
    const route = m.requests.by_route.find((r) => r.route === 'GET /api/v1/libraries');
    expect(route).toMatchObject({
      count: expect.any(Number),
      p50_ms: expect.any(Number),
      p95_ms: expect.any(Number),
      p99_ms: expect.any(Number),
    });
    expect(m.sse_connections).toBe(0);
  });

  it('reports the derived image cache hit ratio: a first thumbnail is a miss, the second a hit', async () => {
    const before = (await api<MetricsSnapshot>(t, 'GET', '/api/v1/metrics')).body.cache;
    const book = await t.database.db.selectFrom('books').select('id').executeTakeFirstOrThrow();
    for (let i = 0; i < 2; i += 1) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/books/${book.id}/thumbnail`,
        headers: { ...t.headers, accept: 'image/webp' },
      });
      expect(res.statusCode).toBe(200);
    }
    const after = (await api<MetricsSnapshot>(t, 'GET', '/api/v1/metrics')).body.cache;
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    expect(after.hit_ratio).toBeGreaterThan(0);
    expect(after.hit_ratio).toBeLessThanOrEqual(1);
    const prom = await t.app.inject({ method: 'GET', url: '/api/v1/metrics/prometheus', headers: t.headers });
    expect(prom.body).toMatch(/colophon_derived_cache_lookups_total\{result="hit"\} [1-9]/);
  });

  it('is forbidden without system-health: a reader gets 403, a maintainer 200', async () => {
    const reader = await createUser(t, 'reader');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/metrics', headers: reader.headers })).statusCode).toBe(403);
    const maintainer = await createUser(t, 'maintainer');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/metrics', headers: maintainer.headers })).statusCode).toBe(200);
  });

  it('GET /metrics/prometheus answers the Prometheus text format', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/metrics/prometheus', headers: t.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const lines = res.body.split('\n').filter((l) => l.length > 0);
    const sample = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)( [0-9]+)?$/;
    for (const line of lines) {
      if (line.startsWith('#')) expect(line).toMatch(/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/);
      else expect(line, line).toMatch(sample);
    }
    expect(res.body).toContain('colophon_catalog_items{kind="books"} 2');
    expect(res.body).toContain('colophon_http_request_duration_seconds_bucket');
    expect(res.body).toContain('colophon_process_resident_memory_bytes');
  });
});

describe('the Prometheus HTTP histogram', () => {
  it('counts the requests made before the first scrape (prom-client loads then) and those after', async () => {
    const fresh = await createTestApp();
    try {
      const headers = await adminHeaders(fresh);
      const ask = () => fresh.app.inject({ method: 'GET', url: '/api/v1/libraries', headers });
      for (let i = 0; i < 5; i++) expect((await ask()).statusCode).toBe(200);
      const series = (body: string, name: string) => {
        const line = body
          .split('\n')
          .find(
            (l) =>
              l.startsWith(`${name}{`) &&
              l.includes('route="/api/v1/libraries"') &&
              l.includes('status="200"') &&
              l.includes('method="GET"'),
          );
        return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
      };
      const scrape = async () => (await fresh.app.inject({ method: 'GET', url: '/api/v1/metrics/prometheus', headers })).body;
      const first = await scrape();
      expect(series(first, 'colophon_http_request_duration_seconds_count')).toBe(5);
      const sum = series(first, 'colophon_http_request_duration_seconds_sum')!;
      expect(sum).toBeGreaterThan(0);
      // Every request fell in some bucket: the +Inf bucket holds them all, and the sum is their time.
      expect(first).toMatch(
        /colophon_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/v1\/libraries",status="200"\} 5/,
      );
      for (let i = 0; i < 3; i++) await ask();
      const second = await scrape();
      expect(series(second, 'colophon_http_request_duration_seconds_count')).toBe(8);
      expect(series(second, 'colophon_http_request_duration_seconds_sum')).toBeGreaterThan(sum);
    } finally {
      await fresh.close();
    }
  });
});

describe('POST /maintenance/cleanup-thumbnails (admin)', () => {
  it('removes cached images whose book no longer exists and keeps the others', async () => {
    const cacheDir = derivedCacheDir(t.config);
    const book = await t.database.db.selectFrom('books').select('hash').executeTakeFirstOrThrow();
    const orphan = 'f'.repeat(64);
    await getOrCreateCached(cacheDir, book.hash!, 'thumb-400.webp', async () => Buffer.alloc(1000, 1));
    await getOrCreateCached(cacheDir, orphan, 'thumb-400.webp', async () => Buffer.alloc(3000, 1));
    await getOrCreateCached(cacheDir, orphan, 'page-1-w800.webp', async () => Buffer.alloc(500, 1));

    const maintainer = await createUser(t, 'maintainer');
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/maintenance/cleanup-thumbnails', headers: maintainer.headers })).statusCode,
    ).toBe(403);

    const res = await api(t, 'POST', '/api/v1/maintenance/cleanup-thumbnails');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ orphaned_hashes: 1, files_removed: 2, bytes_freed: 3500 });
    expect((res.body as { kept_hashes: number }).kept_hashes).toBeGreaterThanOrEqual(1);
    expect(existsSync(cachedPath(cacheDir, orphan, 'thumb-400.webp'))).toBe(false);
    expect(existsSync(cachedPath(cacheDir, book.hash!, 'thumb-400.webp'))).toBe(true);
    const again = await api(t, 'POST', '/api/v1/maintenance/cleanup-thumbnails');
    expect(again.body).toMatchObject({ orphaned_hashes: 0, files_removed: 0, bytes_freed: 0 });
  });
});
