import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connection.js';
import type { App } from '../../src/http/types.js';
import { createTestDatabase } from '../helpers/app.js';
import { adminHeaders, type Headers } from '../helpers/auth.js';
import { pgAdminSettings, postgresOnly, testConfig, testDatabaseType } from '../helpers/config.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A logger writing into an array, as `colophon serve` writes to its log. */
function capturedLogger() {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } },
  };
}

/**
 * `connections` requests at a time, one after another, until `ms` have passed and at least `atLeast` were
 * answered (a busy machine answers fewer in the same time); the statuses seen.
 */
async function load(app: App, headers: Headers, ms: number, atLeast = 0, connections = 20): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = Date.now() + ms;
  let answered = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until || answered < atLeast) {
        answered += 1;
        const res = await app.inject({ method: 'GET', url: '/api/v1/libraries', headers });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('A database outage under load writes a bounded log', () => {
  it('a database that cannot be reached: one line when the outage starts, with its cause and no stack, however many requests', async () => {
    const { lines, logger } = capturedLogger();
    const config = testConfig({ database: { type: 'postgres', host: '127.0.0.1', port: 1, name: 'colophon' } });
    const app = await buildApp({ config, database: openDatabase(config), logger });
    try {
      const statuses = await load(app, {}, 1000, 300);
      expect(statuses.get(503)).toBeGreaterThanOrEqual(300);
      expect(lines.length, JSON.stringify(lines.slice(0, 3))).toBeLessThanOrEqual(2);
      const start = lines.find((l) => l.msg.startsWith('database unreachable'));
      expect(start).toMatchObject({ level: 40, cause: { code: 'ECONNREFUSED' } });
      expect(JSON.stringify(lines)).not.toMatch(/"stack"|\n\s+at /);
    } finally {
      await app.close();
    }
  });
});

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function cuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => (s === client ? upstream : client).destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  return {
    get port() {
      return port;
    },
    cut: async () => {
      const closing = new Promise((r) => server!.close(r));
      for (const s of sockets) s.destroy();
      await closing;
    },
    restore: listen,
  };
}

describe.skipIf(testDatabaseType() !== 'postgres')(postgresOnly('A 30 s PostgreSQL outage under load'), () => {
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  beforeAll(async () => {
    const pg = pgAdminSettings();
    proxy = await cuttableProxy({ host: pg.host, port: pg.port });
  });
  afterAll(async () => {
    await proxy.cut().catch(() => undefined);
  });

  it('logs its start, nothing per refused request, and its end with the count: at most 10 lines', async () => {
    const shared = await createTestDatabase({ database: { port: proxy.port } });
    const { lines, logger } = capturedLogger();
    const app = await buildApp({ config: shared.config, database: shared.database, logger });
    try {
      const headers = await adminHeaders({ app, config: shared.config, database: shared.database, close: async () => undefined });
      expect((await load(app, headers, 300)).get(200)).toBeGreaterThan(0);
      const before = lines.length;

      await proxy.cut();
      const during = await load(app, headers, 30_000, 300);
      expect(during.get(503)).toBeGreaterThanOrEqual(300);
      await proxy.restore();
      const deadline = Date.now() + 20_000;
      while (!lines.some((l) => l.msg === 'database reachable again') && Date.now() < deadline) await sleep(100);
      expect((await load(app, headers, 300)).get(200)).toBeGreaterThan(0);

      const outage = lines.slice(before);
      expect(outage.length, JSON.stringify(outage, null, 1).slice(0, 2000)).toBeLessThanOrEqual(10);
      expect(outage.find((l) => l.msg.startsWith('database unreachable'))).toMatchObject({ level: 40 });
      const end = outage.find((l) => l.msg === 'database reachable again');
      expect(end).toMatchObject({ level: 30 });
      expect(end!.refused_requests).toBeGreaterThanOrEqual(during.get(503)!);
      expect(end!.outage_seconds).toBeGreaterThanOrEqual(29);
      expect(JSON.stringify(outage)).not.toMatch(/"stack"|\n\s+at /);
    } finally {
      await app.close();
      await shared.drop();
    }
  }, 90_000);
});
