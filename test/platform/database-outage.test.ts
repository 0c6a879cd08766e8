import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EventSource } from 'eventsource';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import type { App } from '../../src/http/types.js';
import { createTestDatabase, type TestApp } from '../helpers/app.js';
import { adminHeaders, type Headers } from '../helpers/auth.js';
import { pgAdminSettings, postgresOnly, testConfig, testDatabaseType } from '../helpers/config.js';
import { libraryDir } from '../scanner/helpers.js';

const onPostgres = testDatabaseType() === 'postgres';
const here = path.dirname(fileURLToPath(import.meta.url));

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Ends every connection to the database, as a server restart or failover would. */
const terminateBackends = (name: string) =>
  admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]));

const allowConnections = (name: string, allow: boolean) => admin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allow}`));

const listeningConnections = (name: string) =>
  admin((c) =>
    c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN colophon_events'", [
      name,
    ]),
  ).then((r) => r.rows[0]!.n);

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sse(base: string, headers: Headers, name: string) {
  const frames: Record<string, unknown>[] = [];
  const source = new EventSource(`${base}/api/v1/events/stream`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
  });
  source.addEventListener(name, (e) => frames.push(JSON.parse(e.data) as Record<string, unknown>));
  const opened = new Promise<void>((resolve, reject) => {
    source.onopen = () => resolve();
    source.onerror = () => reject(new Error('SSE error'));
  });
  return { frames, source, opened };
}

describe('A PostgreSQL server that cannot be reached (no server needed: nothing listens on the port)', () => {
  it('answers API requests 503 ServiceUnavailable with Retry-After, login included; /health says degraded', async () => {
    const config = testConfig({ database: { type: 'postgres', host: '127.0.0.1', port: 1, name: 'colophon' } });
    const app = await buildApp({ config, database: openDatabase(config), logger: false });
    try {
      for (const request of [
        { method: 'GET' as const, url: '/api/v1/libraries' },
        { method: 'POST' as const, url: '/api/v1/auth/login', payload: { username: 'admin', password: 'correct horse battery' } },
        {
          method: 'GET' as const,
          url: '/opds/v2/catalog',
          headers: { authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` },
        },
      ]) {
        const res = await app.inject(request);
        expect(res.statusCode, `${request.method} ${request.url}: ${res.body}`).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.json()).toEqual({
          error: 'ServiceUnavailable',
          message: 'The database is unreachable right now; try again shortly',
          details: { retry_after: 5 },
        });
      }
      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'degraded', checks: { database: 'unreachable' } });
    } finally {
      await app.close();
    }
  });

  it('tells an unreachable database from a wrong query of the engine under test', async () => {
    const shared = await createTestDatabase();
    try {
      const wrong = await sql`selec 1`.execute(shared.database.db).catch((err: unknown) => err);
      expect(wrong).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(wrong)).toBe(false);
      const duplicate = await sql`insert into users (id) values (null)`.execute(shared.database.db).catch((err: unknown) => err);
      expect(duplicate).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(duplicate)).toBe(false);
    } finally {
      await shared.database.close();
      await shared.drop();
    }
  });
});

describe.skipIf(!onPostgres)(postgresOnly('A pooled PostgreSQL connection dropped while checked out (own process)'), () => {
  it('does not become an uncaught exception: the process goes on and the pool reconnects', async () => {
    const shared = await createTestDatabase();
    try {
      await shared.database.close();
      const script = path.join(here, 'processes/checked-out-client-drop.ts');
      const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, shared.config.database.name], {
        env: process.env,
        timeout: 100_000,
      }).catch((err: { code?: number; stdout?: string; stderr?: string }) => ({
        stdout: err.stdout ?? '',
        stderr: `exit ${String(err.code)}: ${err.stderr ?? ''}`,
      }));
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('survived');
    } finally {
      await shared.drop();
    }
    // Starting a TypeScript process takes seconds, many more on a busy machine.
  }, 120_000);
});

describe.skipIf(!onPostgres)(postgresOnly('Every PostgreSQL backend terminated under load, two instances sharing the database'), () => {
  let name: string;
  let a: App;
  let b: App;
  let aBase: string;
  let bBase: string;
  let headers: Headers;
  let drop: () => Promise<void>;
  let databaseOfA: Database;
  const logsOfA: { msg: string; event?: string }[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  beforeAll(async () => {
    process.on('uncaughtExceptionMonitor', onUncaught);
    process.on('unhandledRejection', onUncaught);
    const shared = await createTestDatabase({ tasks: { poll_interval_ms: 100 }, rate_limit: { enabled: false } });
    name = shared.config.database.name;
    drop = shared.drop;
    databaseOfA = shared.database;
    const logger = { level: 'warn', stream: { write: (line: string) => void logsOfA.push(JSON.parse(line) as { msg: string }) } };
    a = await buildApp({ config: shared.config, database: shared.database, logger });
    b = await buildApp({ config: shared.config, database: openDatabase(shared.config), logger: false });
    await a.startEventBridge();
    await b.startEventBridge();
    aBase = await a.listen({ host: '127.0.0.1', port: 0 });
    bBase = await b.listen({ host: '127.0.0.1', port: 0 });
    headers = await adminHeaders({ app: a } as TestApp);
  });

  afterAll(async () => {
    process.off('uncaughtExceptionMonitor', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await allowConnections(name, true).catch(() => undefined);
    await b?.close();
    await a?.close();
    await drop?.();
  });

  it('lives through it, answers 503 with Retry-After meanwhile, recovers by itself, and events cross instances again', async () => {
    // Background work of instance A: one task finishes while the database is away, one fails on it mid-run.
    let outageStarted!: () => void;
    const outage = new Promise<void>((resolve) => (outageStarted = resolve));
    let midRunAttempts = 0;
    a.background.worker.register('outage_finishes_during', async () => {
      await outage;
      return { finished: true };
    });
    a.background.worker.register('outage_breaks_mid_run', async () => {
      midRunAttempts += 1;
      if (midRunAttempts === 1) {
        await outage;
        await sql`select 1`.execute(databaseOfA.db);
      }
      return { attempts: midRunAttempts };
    });
    await a.background.start();
    const finishesDuring = (await a.background.queue.enqueue({ type: 'outage_finishes_during' })).task.id;
    const breaksMidRun = (await a.background.queue.enqueue({ type: 'outage_breaks_mid_run' })).task.id;
    await until(
      async () =>
        (await a.background.queue.get(breaksMidRun))?.status === 'running' &&
        (await a.background.queue.get(finishesDuring))?.status === 'running',
      10_000,
      'tasks running',
    );

    // Requests in flight on both instances for the whole outage.
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let loading = true;
    const load = async (app: App, url: string) => {
      while (loading) {
        const res = await app.inject({ method: 'GET', url, headers }).catch((err: unknown) => {
          unexpected.push(String(err));
          loading = false;
        });
        if (!res) return;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode !== 200 && res.statusCode !== 503) unexpected.push(`${res.statusCode} ${res.body}`);
      }
    };
    const loaders = [a, b, a, b, a, b].map((app, i) => load(app, i % 2 ? '/api/v1/libraries' : '/api/v1/series'));
    let recoveredMs: number;
    try {
      // A connection checked out (as by a transaction) and idle when the server ends it.
      const held = databaseOfA.db.connection().execute(() => outage.then(() => sleep(300)));
      await sleep(300);

      await allowConnections(name, false);
      await terminateBackends(name);
      await sleep(200);
      outageStarted();
      for (let i = 0; i < 4; i += 1) {
        await sleep(250);
        await terminateBackends(name);
      }
      await held;

      const during = await a.inject({ method: 'GET', url: '/api/v1/libraries', headers });
      expect(during.statusCode).toBe(503);
      expect(during.headers['retry-after']).toBe('5');
      expect(during.json()).toEqual({
        error: 'ServiceUnavailable',
        message: expect.stringContaining('database') as string,
        details: { retry_after: 5 },
      });
      const health = await b.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'degraded', checks: { database: 'unreachable' } });
      // An event published while NOTIFY cannot be sent is logged with what was dropped.
      a.events.publish('library_updated', {
        type: 'library_updated',
        library_id: 'dropped-during-outage',
        timestamp: new Date().toISOString(),
      });
      const dropped = () => logsOfA.find((l) => l.msg.startsWith('event bridge: could not send an event'));
      await until(() => dropped() !== undefined, 5000, 'the dropped event logged');
      expect(dropped()).toMatchObject({ event: 'library_updated', payload: { library_id: 'dropped-during-outage' } });

      await allowConnections(name, true);
      const back = Date.now();
      await until(
        async () => (await a.inject({ method: 'GET', url: '/api/v1/libraries', headers })).statusCode === 200,
        10_000,
        'instance A answers again',
      );
      await until(
        async () => (await b.inject({ method: 'GET', url: '/api/v1/libraries', headers })).statusCode === 200,
        10_000,
        'instance B answers again',
      );
      recoveredMs = Date.now() - back;
    } finally {
      loading = false;
      await Promise.allSettled(loaders);
    }

    expect(unexpected).toEqual([]);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(recoveredMs).toBeLessThan(10_000);

    // The worker recorded the end it could not write, and ran the broken task again.
    await until(
      async () => (await a.background.queue.get(finishesDuring))?.status === 'completed',
      30_000,
      'task finished during the outage recorded',
    );
    await until(
      async () => (await a.background.queue.get(breaksMidRun))?.status === 'completed',
      30_000,
      'task broken by the outage run again',
    );
    expect(JSON.parse((await a.background.queue.get(breaksMidRun))!.result!)).toEqual({ attempts: 2 });

    // Both bridges LISTEN again, and events flow both ways.
    await until(async () => (await listeningConnections(name)) === 2, 20_000, 'both bridges listening again');
    const onB = sse(bBase, headers, 'library_created');
    const onA = sse(aBase, headers, 'library_created');
    await Promise.all([onB.opened, onA.opened]);
    const fromA = await a.inject({ method: 'POST', url: '/api/v1/libraries', headers, payload: { name: 'After A', path: libraryDir() } });
    const fromB = await b.inject({ method: 'POST', url: '/api/v1/libraries', headers, payload: { name: 'After B', path: libraryDir() } });
    expect([fromA.statusCode, fromB.statusCode]).toEqual([201, 201]);
    await until(() => onB.frames.some((f) => f.library_id === fromA.json<{ id: string }>().id), 10_000, 'B sees the event of A');
    await until(() => onA.frames.some((f) => f.library_id === fromB.json<{ id: string }>().id), 10_000, 'A sees the event of B');
    onA.source.close();
    onB.source.close();

    const messages = logsOfA.map((l) => l.msg);
    expect(messages).toContain('event bridge: LISTEN connection lost; events of other instances are missed until it is back');
    expect(messages).toContain('event bridge: LISTEN connection restored; events other instances published while it was down were missed');
    expect(uncaught).toEqual([]);
  }, 120_000);
});

describe('A network error that is not the database', () => {
  it('a refused connection elsewhere (an SMTP server, a network mount) is not "database unavailable", on either engine', async () => {
    // A real ECONNREFUSED from the kernel, as nodemailer or any other client would meet it.
    const refused = await new Promise<Error>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: 1 });
      socket.on('error', resolve);
    });
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(refused)).toBe(false);
    expect(isDatabaseUnavailable(new Error('sending failed', { cause: refused }))).toBe(false);
  });
});
