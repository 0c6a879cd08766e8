/**
 * The built server (`node dist/cli.js serve`, what `npm start` runs) in its own process, over real HTTP, on the
 * database under test. Users run the bundle, not the sources: a package the bundler mangles (a CommonJS package
 * imported lazily, decision 027) fails here and nowhere else (issue 48).
 *
 * `app.inject` is answered by the process over HTTP, so the helpers written for in-process apps (setup, libraries,
 * scans, tasks) drive it unchanged.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import type { Config } from '../../src/config/schema.js';
import { createTestDatabase } from './app.js';
import { adminHeaders } from './auth.js';
import type { DeepPartial } from './config.js';
import type { CatalogTestApp } from '../scanner/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Builds dist/ from the sources when they are newer (as `npm start` does); the web app is not needed here. */
export function buildServerIfStale(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-stale.mjs'), 'server'], { cwd: ROOT, stdio: 'pipe' });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface InjectOptions {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: unknown;
}

/** What the helpers read of light-my-request's answer, from a real HTTP answer. */
interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  rawPayload: Buffer;
  json<T = unknown>(): T;
}

export interface BuiltServer extends CatalogTestApp {
  origin: string;
  /** Every line the process wrote (its JSON log). */
  log: string[];
  request(options: InjectOptions): Promise<HttpAnswer>;
}

export async function startBuiltServer(overrides: DeepPartial<Config> = {}): Promise<BuiltServer> {
  buildServerIfStale();
  const port = await freePort();
  const { config, database, drop } = await createTestDatabase({
    tasks: { poll_interval_ms: 50 },
    rate_limit: { enabled: false },
    logging: { level: 'info' },
    ...overrides,
    server: { host: '127.0.0.1', port, ...overrides.server },
  });
  const configFile = path.join(config.data_dir, 'colophon.yaml');
  writeFileSync(configFile, YAML.stringify(JSON.parse(JSON.stringify(config))));
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'serve', '--config', configFile], {
    cwd: config.data_dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: process.env.TMPDIR ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const collect = (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const origin = `http://127.0.0.1:${port}`;

  const request = async ({ method, url, headers = {}, payload }: InjectOptions): Promise<HttpAnswer> => {
    const hasBody = payload !== undefined;
    const res = await fetch(origin + url, {
      method,
      headers: { ...(hasBody && typeof payload === 'object' ? { 'content-type': 'application/json' } : {}), ...headers },
      body: hasBody ? (typeof payload === 'string' ? payload : JSON.stringify(payload)) : undefined,
      redirect: 'manual',
    });
    const rawPayload = Buffer.from(await res.arrayBuffer());
    const body = rawPayload.toString('utf8');
    return {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers.entries()),
      body,
      rawPayload,
      json: <T>() => JSON.parse(body) as T,
    };
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the built server exited (${child.exitCode}):\n${log.join('\n')}`);
    const ok = await fetch(`${origin}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the built server did not answer /health within 60 s:\n${log.join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await database.close();
    await drop();
  };
  const app = { inject: request } as unknown as CatalogTestApp['app'];
  const server = { app, config, database, close, headers: {}, origin, log, request } as BuiltServer;
  server.headers = await adminHeaders(server);
  return server;
}
