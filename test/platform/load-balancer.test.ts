import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';
import { pgAdminSettings, postgresOnly, testDatabaseType } from '../helpers/config.js';
import { connect, until } from '../helpers/sse-client.js';
import { makeCbz, makeImage } from '../media/fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
const haproxy = spawnSync('haproxy', ['-v']).status === 0;
const runs = testDatabaseType() === 'postgres' && haproxy;
const title = (name: string) => (!haproxy ? `${name} (skipped: needs HAProxy — apt-get install haproxy)` : postgresOnly(name));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function healthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become healthy`);
}

/**
 * The topology of docker-compose.scale.yml without Docker: PostgreSQL, one worker, two web instances and HAProxy
 * (Debian's, with the compose file's deploy/haproxy.cfg) in front, checking /health, retrying idempotent requests on the other instance, passing SSE through.
 * Under 200 connections of reads, one web instance is killed (SIGKILL) and started again: no read fails, event
 * streams reconnect (Last-Event-ID) and miss nothing, and a scan running on the worker completes.
 */
describe.skipIf(!runs)(title('behind a load balancer: two web instances and a worker'), { timeout: 180_000 }, () => {
  const database = `colophon_lb_${randomBytes(5).toString('hex')}`;
  const data = makeTempDir('colophon-lb-');
  const processes = new Map<string, ChildProcess>();
  const ports: Record<string, number> = {};
  let balancer: ChildProcess;
  let base: string;
  let headers: Record<string, string>;
  const admin = async (sql: string) => {
    const client = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
    await client.connect();
    await client.query(sql);
    await client.end();
  };

  const start = (name: string, role: 'web' | 'worker') => {
    const env = {
      ...process.env,
      COLOPHON_DATA_DIR: path.join(data, 'data'),
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(ports[name]),
      COLOPHON_DATABASE__TYPE: 'postgres',
      COLOPHON_DATABASE__HOST: pgAdminSettings().host,
      COLOPHON_DATABASE__PORT: String(pgAdminSettings().port),
      COLOPHON_DATABASE__USER: pgAdminSettings().user,
      COLOPHON_DATABASE__PASSWORD: pgAdminSettings().password,
      COLOPHON_DATABASE__NAME: database,
      COLOPHON_LOGGING__LEVEL: 'warn',
      COLOPHON_RATE_LIMIT__ENABLED: 'false',
      COLOPHON_TASKS__POLL_INTERVAL_MS: '100',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', role], { cwd: root, env, stdio: 'ignore' });
    processes.set(name, child);
    return healthy(`http://127.0.0.1:${ports[name]}`);
  };

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    for (const name of ['worker', 'web1', 'web2', 'balancer']) ports[name] = await freePort();
    await start('worker', 'worker');
    await Promise.all([start('web1', 'web'), start('web2', 'web')]);
    const config = path.join(data, 'haproxy.cfg');
    // deploy/haproxy.cfg, the compose file's, with this test's ports for Docker's names.
    const shipped = readFileSync(path.join(root, 'deploy/haproxy.cfg'), 'utf8');
    writeFileSync(
      config,
      shipped
        .replace('bind :8080', `bind 127.0.0.1:${ports.balancer}`)
        .replace(/server web1 web1:8080 .*/, `server web1 127.0.0.1:${ports.web1} check`)
        .replace(/server web2 web2:8080 .*/, `server web2 127.0.0.1:${ports.web2} check`)
        .replace(/^resolvers docker[\s\S]*$/m, ''),
    );
    const check = spawnSync('haproxy', ['-c', '-f', config], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    balancer = spawn('haproxy', ['-f', config], { stdio: 'ignore' });
    base = `http://127.0.0.1:${ports.balancer}`;
    await healthy(base);
    const setup = await fetch(`${base}/api/v1/setup/initialize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', email: 'admin@example.org', password: 'correct horse battery' }),
    });
    expect(setup.status, await setup.clone().text()).toBeLessThan(300);
    const login = (await (
      await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'correct horse battery' }),
      })
    ).json()) as { access_token: string };
    headers = { authorization: `Bearer ${login.access_token}` };
  }, 120_000);

  afterAll(async () => {
    balancer?.kill('SIGKILL');
    for (const child of processes.values()) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    for (const child of processes.values()) child.kill('SIGKILL');
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
  });

  it('a web instance killed and restarted under 200 connections: 0 failed reads, streams reconnect and miss nothing, the scan completes', async () => {
    // A library of 400 books, scanned once; its second, deep scan runs on the worker through the kill.
    const lib = path.join(data, 'library');
    const page = await makeImage({ width: 8, height: 8, format: 'png' });
    for (let s = 0; s < 20; s++) {
      mkdirSync(path.join(lib, `Series ${s}`), { recursive: true });
      for (let n = 1; n <= 20; n++)
        await makeCbz(path.join(lib, `Series ${s}`), `Series ${s} ${n}.cbz`, { pages: [{ name: 'p.png', data: page }] });
    }
    const post = (url: string, body?: unknown) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const library = (await (await post('/api/v1/libraries', { name: 'Balanced', path: lib })).json()) as { id: string };
    const first = (await (await post(`/api/v1/libraries/${library.id}/scan`)).json()) as { id: string };
    const finished = async (taskId: string): Promise<string> => {
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        const task = (await (await fetch(`${base}/api/v1/tasks/${taskId}`, { headers })).json()) as { status: string };
        if (['completed', 'failed', 'cancelled'].includes(task.status)) return task.status;
        await new Promise((r) => setTimeout(r, 200));
      }
      return 'still running after 90 s';
    };
    expect(await finished(first.id)).toBe('completed');
    const book = (
      (await (await fetch(`${base}/api/v1/books?library_id=${library.id}&pageSize=1`, { headers })).json()) as { data: { id: string }[] }
    ).data[0]!;

    // Event streams through the balancer (landing on either instance) and one straight on web2, the reference.
    const names = ['scan_started', 'scan_progress', 'scan_completed'];
    const streams = Array.from({ length: 6 }, () => connect(base, '/api/v1/scans/stream', headers, names));
    const reference = connect(`http://127.0.0.1:${ports.web2}`, '/api/v1/scans/stream', headers, names);
    await Promise.all([...streams, reference].map((s) => s.opened));

    const reads = [
      `/api/v1/series?library_id=${library.id}&pageSize=20`,
      `/api/v1/books?library_id=${library.id}&pageSize=20`,
      `/api/v1/books/${book.id}`,
      `/api/v1/books/${book.id}/pages/1`,
      '/api/v1/libraries',
      '/health',
    ];
    let requests = 0;
    const failures: string[] = [];
    let stop = false;
    const client = async (i: number) => {
      for (let n = i; !stop; n++) {
        const url = reads[n % reads.length]!;
        try {
          const res = await fetch(`${base}${url}`, { headers });
          await res.arrayBuffer();
          requests++;
          if (res.status !== 200) failures.push(`${res.status} ${url}`);
        } catch (err) {
          requests++;
          failures.push(`${(err as Error).message} ${url}`);
        }
      }
    };
    const load = Promise.all(Array.from({ length: 200 }, (_, i) => client(i)));
    await new Promise((r) => setTimeout(r, 1500));
    const deep = (await (await fetch(`${base}/api/v1/libraries/${library.id}/scan?mode=deep`, { method: 'POST', headers })).json()) as {
      id: string;
    };
    await new Promise((r) => setTimeout(r, 300));
    processes.get('web1')!.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 3000));
    await start('web1', 'web');
    await new Promise((r) => setTimeout(r, 2000));
    stop = true;
    await load;
    expect(await finished(deep.id)).toBe('completed');
    const ended = (st: (typeof streams)[number]) => st.frames.some((f) => f.event === 'scan_completed' && f.data.task_id === deep.id);
    await until(() => [...streams, reference].every(ended), 30_000).catch(() => {
      throw new Error(
        `streams without the scan's end: ${[...streams, reference].map((st) => `${ended(st)}/${st.frames.length}/${st.state.errors}/rs${st.source.readyState}`).join(' ')}; ${requests} requests, failures ${failures.slice(0, 5).join('; ')}`,
      );
    });
    await new Promise((r) => setTimeout(r, 500));
    const seen = (s: (typeof streams)[number]) =>
      s.frames.filter((f) => f.data.task_id === deep.id).map((f) => `${f.event}:${f.data.files_processed}`);
    const missed = streams.map((s) => seen(reference).filter((e) => !seen(s).includes(e)).length);
    const reconnects = streams.reduce((sum, s) => sum + s.state.errors, 0);
    for (const s of [...streams, reference]) s.source.close();
    // The counts issue 56 asks to be shown, in the test output.
    console.warn(
      `load balancer: ${requests} requests, ${failures.length} failed, ${reconnects} stream reconnections, events missed ${missed.join('/')}`,
    );
    expect(requests).toBeGreaterThan(1000);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(reconnects).toBeGreaterThan(0);
    expect(missed).toEqual(streams.map(() => 0));
  });
});
