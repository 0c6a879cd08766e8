/**
 * The bench's HTTP load client: wrk (https://github.com/wg/wrk; Debian/Ubuntu package `wrk`), a C program with an
 * event loop per thread, spawned as its own process. autocannon (a Node.js client) was the bottleneck before:
 * against the bare page floor it reached ~1,070 req/s at a p50 of ~17 ms where wrk reaches ~6,400 req/s at 2.7 ms,
 * so the server/floor ratios it gave described the client (docs/benchmarks.md).
 *
 * Every load goes through a Lua script written to a temp file (`wrk -s`): the requests, one line each in a file
 * beside it (`METHOD<TAB>path<TAB>body`), are formatted once per thread in `init`, and every request picks one of them
 * at random; the headers (the `Authorization` of the bench's admin) are set in the script. The figures come from
 * wrk's `done(summary, latency, requests)` hook, which prints one line of JSON (requests, duration, bytes, socket
 * errors, non-2xx answers, latency percentiles in µs): nothing is read from wrk's human summary.
 *
 * Answers are checked twice. The unmeasured warm-up run has a `response` hook that counts every answer that is not
 * 2xx, by status; the measured run has none (a Lua `response` hook makes wrk copy every header and body into Lua:
 * ~30% more of wrk's CPU per page answer, taken from the 2 cores the server and wrk share) and counts wrk's own status
 * errors (every answer ≥ 400) instead. A load without a warm-up has the hook in its measured run. A run with a non-2xx
 * answer or a socket error (connect, read, write, timeout), in the warm-up or the measured run, is invalid: it gives
 * no rate, only what went wrong.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One request of a load; a load picks one of its requests at random for every request it sends. */
export interface WrkRequest {
  method?: string;
  path: string;
  /** Sent with `content-type: application/json`. No tab or line break (JSON.stringify's output has none). */
  body?: string;
}

export interface WrkOptions {
  /** `http://127.0.0.1:PORT`: where the requests' paths go. */
  base: string;
  requests: readonly WrkRequest[];
  /** Sent with every request (set in the Lua script, not on the command line). */
  headers?: Record<string, string>;
  /** Default 20. */
  connections?: number;
  /** Default 2. */
  threads?: number;
  seconds: number;
  /** A run of wrk first, of this many seconds, not measured (a running server is warm: JIT, caches). Default 0. */
  warmupSeconds?: number;
  /** wrk's `--timeout` (a request slower than this counts as a timeout error). Default 5. */
  timeoutSeconds?: number;
}

export interface WrkErrors {
  connect: number;
  read: number;
  write: number;
  timeout: number;
  /**
   * Answers that were not 2xx, by status; `>=400` when only wrk's own count is known (a run without the `response`
   * hook: wrk counts every status above 399).
   */
  statuses: Record<string, number>;
  non2xx: number;
}

export interface WrkResult {
  /** Completed requests (every status). */
  requests: number;
  /** Measured duration, µs. */
  durationUs: number;
  bytes: number;
  /** Requests a second; 0 when the run is invalid. */
  rps: number;
  /** Latency, ms (wrk's histogram: `latency:percentile(p)`, `latency.mean`, `latency.max`). */
  latency: { p50: number; p95: number; p99: number; mean: number; max: number };
  errors: WrkErrors;
  /** The unmeasured run before, when there was one: its answers checked one by one (every status not 2xx counted). */
  warmup?: { requests: number; errors: WrkErrors };
  /** No non-2xx answer, no socket error, in the measured run or the warm-up. */
  valid: boolean;
  /** What made the run invalid, e.g. `3 non-2xx (404×3), 2 read errors`. */
  problem?: string;
  connections: number;
  threads: number;
  /** os.loadavg() just before and after the measured run. */
  load: { before: number[]; after: number[] };
}

export const NOT_FOUND = 'wrk not found: apt-get install wrk';

/** wrk's version line (`wrk 4.1.0 [epoll] …`); throws NOT_FOUND when wrk is not on PATH. */
export function requireWrk(): string {
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (probe.error) throw new Error((probe.error as NodeJS.ErrnoException).code === 'ENOENT' ? NOT_FOUND : `wrk: ${probe.error.message}`);
  const first = `${probe.stdout}${probe.stderr}`.split('\n')[0] ?? '';
  return first.replace(/\s*Copyright.*$/, '').trim();
}

/** A Lua string literal of `s`, every byte outside printable ASCII escaped. */
function lua(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += c === '"' || c === '\\' ? `\\${c}` : byte >= 0x20 && byte < 0x7f ? c : `\\${byte}`;
  }
  return `${out}"`;
}

const MARKER = '@@bench-wrk ';

function script(requestsFile: string, headers: Record<string, string>, checkEach: boolean): string {
  const headerLines = Object.entries(headers)
    .map(([name, value]) => `  [${lua(name)}] = ${lua(value)},`)
    .join('\n');
  return `-- Written by bench/wrk.ts for one run of wrk.
local requests_file = ${lua(requestsFile)}
local common = {
${headerLines}
}

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

local requests, count = {}, 0
function init(args)
  for line in io.lines(requests_file) do
    local method, path, body = line:match("^([^\\t]*)\\t([^\\t]*)\\t(.*)$")
    local headers = { ["Host"] = wrk.headers["Host"] }
    for name, value in pairs(common) do headers[name] = value end
    if body == "" then
      body = nil
    else
      headers["Content-Type"] = "application/json"
    end
    count = count + 1
    requests[count] = wrk.format(method, path, headers, body)
  end
  math.randomseed(id * 7919 + os.time())
  non2xx = 0
  statuses = {}
end

function request()
  return requests[math.random(count)]
end

${
  checkEach
    ? `function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    local key = tostring(status)
    statuses[key] = (statuses[key] or 0) + 1
  end
end
`
    : '-- No response hook: wrk counts the answers above 399 itself (summary.errors.status).\n'
}
function done(summary, latency, requests)
  local e = summary.errors
  local non2xx_total, by_status = 0, {}
  for _, thread in ipairs(threads) do
    non2xx_total = non2xx_total + (thread:get("non2xx") or 0)
    for status, n in pairs(thread:get("statuses") or {}) do by_status[status] = (by_status[status] or 0) + n end
  end
${
  checkEach
    ? ''
    : `  if e.status > 0 then
    non2xx_total = e.status
    by_status[">=400"] = e.status
  end
`
}  local parts = {}
  for status, n in pairs(by_status) do parts[#parts + 1] = string.format('"%s":%d', status, n) end
  io.write(string.format(
    '\\n${MARKER}{"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d},' ..
      '"non2xx":%d,"statuses":{%s},"latency_us":{"p50":%d,"p95":%d,"p99":%d,"mean":%.1f,"max":%d}}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
    non2xx_total, table.concat(parts, ","),
    latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean, latency.max))
end
`;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
  non2xx: number;
  statuses: Record<string, number>;
  latency_us: { p50: number; p95: number; p99: number; mean: number; max: number };
}

function wrkOnce(
  url: string,
  scriptFile: string,
  threads: number,
  connections: number,
  seconds: number,
  timeout: number,
): Promise<WrkJson> {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--timeout', `${timeout}s`, '-s', scriptFile, url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new Error(NOT_FOUND) : err));
    child.once('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith(MARKER));
      if (code !== 0 || !line) {
        reject(new Error(`wrk ${args.join(' ')} exited ${code} without figures: ${(stderr || stdout).trim().slice(-2000)}`));
        return;
      }
      resolve(JSON.parse(line.slice(MARKER.length)) as WrkJson);
    });
  });
}

const ms = (us: number) => Math.round(us / 10) / 100;

const errorsOf = (raw: WrkJson): WrkErrors => ({
  connect: raw.errors.connect,
  read: raw.errors.read,
  write: raw.errors.write,
  timeout: raw.errors.timeout,
  statuses: raw.statuses,
  non2xx: raw.non2xx,
});

/** What makes a run invalid, in words (none: valid). */
function problemsOf(errors: WrkErrors, requests: number): string[] {
  return [
    errors.non2xx
      ? `${errors.non2xx} non-2xx (${Object.entries(errors.statuses)
          .map(([s, n]) => `${s}×${n}`)
          .join(', ')})`
      : '',
    ...(['connect', 'read', 'write', 'timeout'] as const).map((k) => (errors[k] ? `${errors[k]} ${k} errors` : '')),
    requests === 0 ? 'no request completed' : '',
  ].filter(Boolean);
}

/**
 * One measured run of wrk over `options.requests`, after `warmupSeconds` of unmeasured load (if any) whose answers
 * are checked one by one.
 */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  if (options.requests.length === 0) throw new Error('wrk: no requests');
  const threads = options.threads ?? 2;
  const connections = options.connections ?? 20;
  const timeout = options.timeoutSeconds ?? 5;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-wrk-'));
  try {
    const requestsFile = path.join(dir, 'requests.tsv');
    for (const r of options.requests)
      if (/[\t\r\n]/.test(r.path + (r.body ?? ''))) throw new Error(`wrk: a tab or line break in a request: ${r.path}`);
    writeFileSync(requestsFile, options.requests.map((r) => `${r.method ?? 'GET'}\t${r.path}\t${r.body ?? ''}`).join('\n') + '\n');
    const checked = path.join(dir, 'load-checked.lua');
    const plain = path.join(dir, 'load.lua');
    writeFileSync(checked, script(requestsFile, options.headers ?? {}, true));
    writeFileSync(plain, script(requestsFile, options.headers ?? {}, false));
    const url = `${options.base}/`;
    const warm = options.warmupSeconds ? await wrkOnce(url, checked, threads, connections, options.warmupSeconds, timeout) : undefined;
    const before = os.loadavg();
    const raw = await wrkOnce(url, warm ? plain : checked, threads, connections, options.seconds, timeout);
    const after = os.loadavg();
    const errors = errorsOf(raw);
    const warmup = warm && { requests: warm.requests, errors: errorsOf(warm) };
    const warmupProblems = warmup ? problemsOf(warmup.errors, warmup.requests) : [];
    const problems = [...problemsOf(errors, raw.requests), ...(warmupProblems.length ? [`warm-up: ${warmupProblems.join(', ')}`] : [])];
    const valid = problems.length === 0;
    return {
      requests: raw.requests,
      durationUs: raw.duration_us,
      bytes: raw.bytes,
      rps: valid ? Math.round(raw.requests / (raw.duration_us / 1e6)) : 0,
      latency: {
        p50: ms(raw.latency_us.p50),
        p95: ms(raw.latency_us.p95),
        p99: ms(raw.latency_us.p99),
        mean: ms(raw.latency_us.mean),
        max: ms(raw.latency_us.max),
      },
      errors,
      ...(warmup ? { warmup } : {}),
      valid,
      ...(valid ? {} : { problem: problems.join(', ') }),
      connections,
      threads,
      load: { before, after },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One side of a comparison (server or floor; a restricted or an unrestricted reader): its better valid run, or what made it invalid. */
export interface Side {
  valid: boolean;
  problem?: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  runs: WrkResult[];
}

/** The run with the most req/s; invalid when any run is. */
export function bestOf(runs: WrkResult[]): Side {
  const problems = runs.map((r, i) => (r.valid ? '' : `run ${i + 1}: ${r.problem}`)).filter(Boolean);
  const best = runs.filter((r) => r.valid).reduce<WrkResult | undefined>((a, b) => (!a || b.rps > a.rps ? b : a), undefined);
  if (problems.length || !best)
    return {
      valid: false,
      problem: problems.join('; ') || 'no run',
      rps: 0,
      p50: 0,
      p95: 0,
      p99: 0,
      runs,
    };
  return { valid: true, rps: best.rps, p50: best.latency.p50, p95: best.latency.p95, p99: best.latency.p99, runs };
}
