/**
 * Mixed load against a running server: `npx tsx bench/pages-load.ts --base http://127.0.0.1:PORT --library DIR
 * [--connections 200] [--duration 20] [--threads 2]`. Sets up an admin (or logs in), creates and scans a library of DIR, then
 * drives series lists and original page reads of every book, each request a random one of them, over `connections` connections, while
 * one more connection asks `/health` (measured on its own). Prints errors, non-2xx answers and latencies.
 * Both loads are wrk (bench/wrk.ts), each its own process: `--threads` (default 2) for the mixed one, one for `/health`.
 * Start the server with rate limiting off (`rate_limit.enabled: false`): this measures the server, not the limiter.
 */
import { parseArgs } from 'node:util';
import { runWrk, type WrkResult } from './wrk.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    library: { type: 'string' },
    connections: { type: 'string', default: '200' },
    duration: { type: 'string', default: '20' },
    threads: { type: 'string', default: '2' },
    /** `pages` or `series` alone, to see which half is slow. */
    only: { type: 'string' },
  },
});
const base = values.base ?? 'http://127.0.0.1:8080';
const credentials = { username: 'admin', email: 'admin@example.org', password: 'bench password 123' };

async function json<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, {
    ...init,
    headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

async function token(): Promise<string> {
  const setup = await json<{ access_token?: string }>('/api/v1/setup/initialize', { method: 'POST', body: JSON.stringify(credentials) });
  if (setup.body.access_token) return setup.body.access_token;
  const login = await json<{ access_token: string }>('/api/v1/auth/login', {
    method: 'POST',
    body: JSON.stringify({ username: credentials.username, password: credentials.password }),
  });
  return login.body.access_token;
}

async function main(): Promise<void> {
  const authorization = `Bearer ${await token()}`;
  const headers = { authorization };
  let books = (await json<{ data: Array<{ id: string; page_count: number }> }>('/api/v1/books?pageSize=500', { headers })).body.data;
  if (books.length === 0 && values.library) {
    const libraries = await json<{ data: Array<{ id: string; path: string }> }>('/api/v1/libraries', { headers });
    const known = libraries.body.data.find((l) => l.path === values.library);
    const lib =
      known ??
      (
        await json<{ id: string }>('/api/v1/libraries', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'bench', path: values.library }),
        })
      ).body;
    const task = await json<{ id: string }>(`/api/v1/libraries/${lib.id}/scan`, { method: 'POST', headers });
    if (task.status !== 202) throw new Error(`scan not started: ${task.status} ${JSON.stringify(task.body)}`);
    for (;;) {
      const t = await json<{ status: string }>(`/api/v1/tasks/${task.body.id}`, { headers });
      if (['completed', 'failed', 'cancelled'].includes(t.body.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    books = (await json<{ data: Array<{ id: string; page_count: number }> }>('/api/v1/books?pageSize=500', { headers })).body.data;
  }
  const requests: Array<{ method: string; path: string }> = [];
  for (const book of books) {
    for (let n = 1; n <= Math.min(book.page_count, 6); n++) requests.push({ method: 'GET', path: `/api/v1/books/${book.id}/pages/${n}` });
  }
  const pageReads = requests.length;
  if (values.only === 'series') requests.length = 0;
  for (let i = 0; i < (values.only === 'pages' ? 0 : pageReads); i++)
    requests.push({ method: 'GET', path: `/api/v1/series?page=${(i % 3) + 1}&pageSize=${[5, 20, 50][i % 3]}` });
  for (let i = requests.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [requests[i], requests[j]] = [requests[j]!, requests[i]!];
  }
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  console.log(
    `${books.length} books; ${requests.length} URLs (${values.only ?? 'page reads and series lists'}), shuffled; ${connections} connections for ${duration} s`,
  );
  const [mixed, health] = await Promise.all([
    runWrk({ base, requests, headers: { Authorization: authorization }, connections, threads: Number(values.threads), seconds: duration }),
    runWrk({ base, requests: [{ path: '/health' }], connections: 1, threads: 1, seconds: duration }),
  ]);
  const summary = (r: WrkResult) => ({
    requests: r.requests,
    rps: r.valid ? r.rps : Math.round(r.requests / (r.durationUs / 1e6)),
    valid: r.valid,
    problem: r.problem,
    errors: r.errors,
    p50_ms: r.latency.p50,
    p95_ms: r.latency.p95,
    p99_ms: r.latency.p99,
  });
  console.log(JSON.stringify({ mixed: summary(mixed), health: summary(health) }, null, 2));
}

await main();
