/**
 * The server as users run it, for the benchmarks: `node dist/cli.js serve` in its own process, on a fresh temp
 * data folder and a free loopback port, with a YAML config file; driven over HTTP. Its stdout and stderr (the
 * access log at the default `info` level) go to a file in the data folder, as they would to a log collector.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const distCli = path.join(repoRoot, 'dist', 'cli.js');
export const ADMIN = { username: 'bench', email: 'bench@example.org', password: 'bench-password-1234' };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** VmRSS and VmHWM (the kernel's high-water mark) of a process, in bytes. */
export function processMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `url` every `everyMs` until it answers 200; returns when it did. */
export async function waitFor200(url: string, child: ChildProcess | null, timeoutMs = 60_000, everyMs = 10): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (child && child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before ${url} answered`);
    if (Date.now() > until) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

export interface ServerProcess {
  base: string;
  pid: number;
  dataDir: string;
  logFile: string;
  /** Milliseconds from spawn to the first `/health` 200. */
  startMs: number;
  /** VmRSS 1 s after the first `/health` 200, before any other request (the admin's creation hashes a password). */
  rssBeforeSetup: number;
  token: string;
  call<T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/**
 * Starts the server with the defaults a user has, except: rate limiting off (20 connections from one address
 * would be refused at 50 req/s, which would measure the limiter), and `extra` config on top. Creates the admin.
 */
export async function startServerProcess(extra: Record<string, unknown> = {}): Promise<ServerProcess> {
  if (!existsSync(distCli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-server-'));
  const port = await freePort();
  const configFile = path.join(dataDir, 'colophon.yaml');
  const config = { server: { host: '127.0.0.1', port }, data_dir: path.join(dataDir, 'data'), rate_limit: { enabled: false }, ...extra };
  writeFileSync(configFile, JSON.stringify(config, null, 2)); // JSON is YAML
  const logFile = path.join(dataDir, 'server.log');
  const log = openSync(logFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs(), distCli, 'serve', '--config', configFile], {
    cwd: dataDir,
    stdio: ['ignore', log, log],
    env: withoutColophonEnv(),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor200(`${base}/health`, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}; log: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
  }
  const startMs = performance.now() - started;
  await sleep(1000);
  const rssBeforeSetup = processMemory(child.pid!).rss;
  let token = '';
  const call = async <T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${base}/api/v1${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
  token = (await call<{ access_token: string }>('POST', '/setup/initialize', ADMIN)).body.access_token;
  return {
    base,
    pid: child.pid!,
    dataDir,
    logFile,
    startMs,
    rssBeforeSetup,
    token,
    call,
    /** Stops the server and removes its data folder (BENCH_KEEP=1 keeps it, with its log). */
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (!process.env.BENCH_KEEP) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** BENCH_NODE_ARGS: extra node options for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it). */
const nodeArgs = (): string[] => (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** The bench's own COLOPHON_* variables must not reach the server (they would override its config file). */
export function withoutColophonEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('COLOPHON_')));
}
