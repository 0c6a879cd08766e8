import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase } from '../../src/db/connection.js';
import type { App } from '../../src/http/types.js';
import { startServer } from '../../src/server.js';
import { createTestDatabase } from '../helpers/app.js';
import { adminHeaders } from '../helpers/auth.js';
import { postgresOnly, testConfig, testDatabaseType } from '../helpers/config.js';
import { connect, until } from '../helpers/sse-client.js';
import { makeCbz } from '../media/fixtures.js';
import { libraryDir } from '../scanner/helpers.js';

describe('server.role', () => {
  it('web and worker need PostgreSQL: on SQLite the server refuses to start, saying why', async () => {
    const config = testConfig({ server: { role: 'worker' } });
    if (config.database.type !== 'sqlite') config.database = { ...config.database, type: 'sqlite' } as Config['database'];
    await expect(startServer(config)).rejects.toThrow(/server\.role "worker" needs PostgreSQL/);
  });
});

/**
 * A web instance and a worker on one PostgreSQL database, as `colophon serve --role web` and `--role worker` run
 * them: the web instance answers and queues, the worker runs the scan, and its events reach the web instance's
 * clients through the database.
 */
describe.skipIf(testDatabaseType() !== 'postgres')(postgresOnly('a web instance and a worker'), { timeout: 60_000 }, () => {
  let web: App;
  let worker: App;
  let webBase: string;
  let workerBase: string;
  let drop: () => Promise<void>;
  let database: Awaited<ReturnType<typeof createTestDatabase>>['database'];
  let headers: Record<string, string>;

  beforeAll(async () => {
    const shared = await createTestDatabase({ tasks: { poll_interval_ms: 50 }, rate_limit: { enabled: false } });
    drop = shared.drop;
    database = shared.database;
    const as = (role: 'web' | 'worker'): Config => ({ ...shared.config, server: { ...shared.config.server, role } });
    web = await buildApp({ config: as('web'), database: shared.database, logger: false });
    worker = await buildApp({ config: as('worker'), database: openDatabase(shared.config), logger: false });
    webBase = await web.listen({ host: '127.0.0.1', port: 0 });
    workerBase = await worker.listen({ host: '127.0.0.1', port: 0 });
    await Promise.all([web.startEventBridge(), worker.startEventBridge()]);
    await Promise.all([web.background.start(), worker.background.start()]);
    headers = await adminHeaders({ app: web, config: shared.config, database: shared.database, close: async () => undefined });
  });
  afterAll(async () => {
    await worker?.close();
    await web?.close();
    await drop?.();
  });

  it('the worker answers /health and nothing else', async () => {
    expect((await fetch(`${workerBase}/health`)).status).toBe(200);
    const api = await fetch(`${workerBase}/api/v1/libraries`, { headers });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { message: string }).message).toContain('worker');
    expect((await fetch(`${workerBase}/`)).status).toBe(404);
  });

  it('a scan asked of the web instance runs on the worker; the web instance hears it end and serves the books', async () => {
    const dir = libraryDir();
    mkdirSync(path.join(dir, 'Saga'));
    for (const n of [1, 2, 3])
      await makeCbz(path.join(dir, 'Saga'), `Saga ${n}.cbz`, { pages: 1, comicInfo: { Series: 'Saga', Number: n } });
    const stream = connect(webBase, '/api/v1/scans/stream', headers, ['scan_completed']);
    await stream.opened;
    const created = await fetch(`${webBase}/api/v1/libraries`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Split', path: dir }),
    });
    expect(created.status).toBe(201);
    const library = (await created.json()) as { id: string };
    const scan = await fetch(`${webBase}/api/v1/libraries/${library.id}/scan`, { method: 'POST', headers });
    expect(scan.status).toBe(202);
    const task = (await scan.json()) as { id: string };
    await until(() => stream.frames.some((f) => f.data.library_id === library.id), 30_000);
    stream.source.close();
    const row = await database.db.selectFrom('tasks').select(['status', 'worker_id']).where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');
    expect(row.worker_id).toBe(worker.background.worker.id);
    expect(row.worker_id).not.toBe(web.background.worker.id);
    const books = await fetch(`${webBase}/api/v1/books?library_id=${library.id}`, { headers });
    expect(((await books.json()) as { total: number }).total).toBe(3);
  });
});
