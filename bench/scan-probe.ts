/**
 * Where a first scan's time and memory go, seen from outside (a diagnostic beside `npm run bench`, which it does
 * not replace): the server as `bench/outside.ts` runs it, one first scan of the issue-22 corpus, and then
 *  - CPU time per thread of the server process (Linux /proc): the main thread, threads started during the scan
 *    (analysis workers, the walk thread) and those that were there before (V8's helpers, libuv's pool);
 *  - VmRSS/VmHWM every half second, and the main thread's heap (GET /metrics) with the process's memory by kind
 *    of mapping at the scan's end;
 *  - PROBE_COVERS=1: the same through the cover task that follows the scan (every 2 s).
 * BENCH_BOOKS (2000) picks the corpus, BENCH_NODE_ARGS passes node options to the server (`--cpu-prof …`),
 * PROBE_THREADS=1 lists CPU time thread by thread, PROBE_UTIL=1 the process's CPU time at each poll (how many
 * cores the scan kept busy when), PROBE_CONFIG is JSON merged into its config (e.g. `{"scanner":{"workers":1}}`).
 * `npm run build && npx tsx bench/scan-probe.ts`
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { processMemory, sleep, startServerProcess, type ServerProcess } from './server-process.js';
import { ensureUserCorpus, ISSUE_SHAPE } from './user-corpus.js';

interface ThreadCpu {
  name: string;
  ms: number;
}

/** CPU time of each thread of a process, by thread id. */
function threadCpu(pid: number): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: (Number(fields[11]) + Number(fields[12])) * 10 });
  }
  return out;
}

/** MiB, printed as "MB" like every figure of the bench (`bench/outside.ts`) and docs/benchmarks.md. */
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** The main thread's heap, and the process's resident memory by mapping kind (file-backed, anonymous). */
async function memoryReport(server: ServerProcess, label: string): Promise<void> {
  const memory = (await server.call<{ process: { memory: Record<string, number> } }>('GET', '/metrics')).body.process.memory;
  let fileKb = 0;
  let anonKb = 0;
  let anonymous = false;
  for (const line of readFileSync(`/proc/${server.pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) anonymous = !head[1] || head[1].startsWith('[');
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && anonymous) anonKb += Number(rss[1]);
    else if (rss) fileKb += Number(rss[1]);
  }
  console.log(
    `${label}: heap used ${mb(memory.heap_used_bytes!)} MB of ${mb(memory.heap_total_bytes!)} MB, external ${mb(memory.external_bytes!)} MB; ` +
      `RSS ${mb(memory.rss_bytes!)} MB = file-backed ${(fileKb / 1024).toFixed(0)} + anonymous ${(anonKb / 1024).toFixed(0)} MB`,
  );
}

const books = Number(process.env.BENCH_BOOKS ?? 2000);
const corpus = await ensureUserCorpus({ ...ISSUE_SHAPE, series: Math.round(books / ISSUE_SHAPE.perSeries) }, console.log);
const server = await startServerProcess(JSON.parse(process.env.PROBE_CONFIG ?? '{}') as Record<string, unknown>);
try {
  await sleep(Number(process.env.PROBE_REST_MS ?? 500));
  console.log(
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; RSS before the scan ${mb(processMemory(server.pid).rss)} MB`,
  );
  const before = threadCpu(server.pid);
  const seen = new Map<string, ThreadCpu>();
  const timeline: string[] = [];
  const util: string[] = [];
  const clock = performance.now();
  const library = (await server.call<{ id: string }>('POST', '/libraries', { name: 'Probe', path: corpus.library })).body;
  const task = (await server.call<{ id: string }>('POST', `/libraries/${library.id}/scan`)).body;
  let status = '';
  for (let lastSample = -Infinity; ; await sleep(50)) {
    for (const [tid, t] of threadCpu(server.pid)) seen.set(tid, t);
    status = (await server.call<{ status: string }>('GET', `/tasks/${task.id}`)).body.status;
    const now = performance.now() - clock;
    if (process.env.PROBE_UTIL) {
      let total = 0;
      for (const t of threadCpu(server.pid).values()) total += t.ms;
      util.push(`${(now / 1000).toFixed(2)}:${total}`);
    }
    if (now - lastSample >= 500) {
      lastSample = now;
      const m = processMemory(server.pid);
      timeline.push(`${(now / 1000).toFixed(1)} s ${mb(m.rss)}/${mb(m.hwm)}`);
    }
    if (['completed', 'failed', 'cancelled'].includes(status)) break;
  }
  const scanMs = performance.now() - clock;
  let main = 0;
  let started = 0;
  let existing = 0;
  for (const [tid, t] of seen) {
    const used = t.ms - (before.get(tid)?.ms ?? 0);
    if (Number(tid) === server.pid) main += used;
    else if (before.has(tid)) existing += used;
    else started += used;
  }
  console.log(
    `scan ${status} in ${(scanMs / 1000).toFixed(2)} s; CPU ${main + started + existing} ms: main thread ${main}, threads started by the scan ${started}, ` +
      `threads there before (V8 helpers, libuv pool) ${existing}; VmHWM ${mb(processMemory(server.pid).hwm)} MB`,
  );
  console.log(`RSS/VmHWM in MB: ${timeline.join(' | ')}`);
  if (process.env.PROBE_UTIL) console.log(`process CPU ms by time: ${util.join(' ')}`);
  if (process.env.PROBE_THREADS) {
    const rows = [...seen].map(([tid, t]) => `${t.name}${before.has(tid) ? '' : '*'} ${t.ms - (before.get(tid)?.ms ?? 0)}`);
    console.log(`CPU ms by thread (* started by the scan): ${rows.filter((r) => !r.endsWith(' 0')).join(', ')}`);
  }
  await memoryReport(server, 'at the scan end');
  if (process.env.PROBE_COVERS) {
    const samples: string[] = [];
    for (;;) {
      const stats = (await server.call<{ by_status: Record<string, number> }>('GET', '/tasks/stats')).body;
      if ((stats.by_status.pending ?? 0) + (stats.by_status.running ?? 0) === 0) break;
      const m = processMemory(server.pid);
      samples.push(`${((performance.now() - clock) / 1000).toFixed(0)} s ${mb(m.rss)}/${mb(m.hwm)}`);
      await sleep(2000);
    }
    console.log(`covers, RSS/VmHWM in MB: ${samples.join(' | ')}`);
    await memoryReport(server, `covers done at ${((performance.now() - clock) / 1000).toFixed(0)} s`);
    console.log(`VmHWM through the covers ${mb(processMemory(server.pid).hwm)} MB`);
  }
} finally {
  await server.stop();
}
