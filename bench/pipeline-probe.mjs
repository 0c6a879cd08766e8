/* global process, URL, performance, setTimeout */
// The first scan's worker pipeline alone, beside its floor (issue 22): the analysis worker's own code
// (`analyzeManyForCatalog` of the built bundle, 16 books a trip as the scanner sends them) in 2 worker threads,
// over every file of a corpus, several passes in the same two threads. Pass 1 is what a first scan's workers do
// cold (V8 compiling as it goes); the later passes, the same code already optimised. No server, no database, no
// walk: what remains between a pass and the floor is the per-book JavaScript itself. Then the floor
// (bench/floors/hash-floor.mjs) over the same files.
// `npm run build && node bench/pipeline-probe.mjs <corpus library folder> [passes=4]`
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const TRIP = 16;
const bundle = new URL('../dist/media/analysis/analysis-worker.js', import.meta.url);

if (isMainThread) {
  const root = process.argv[2];
  if (!root) throw new Error('usage: node bench/pipeline-probe.mjs <library folder> [passes]');
  const passes = Number(process.argv[3] ?? 4);
  const files = readdirSync(root, { recursive: true })
    .map((name) => path.join(root, String(name)))
    .filter((file) => statSync(file).isFile())
    .sort();
  const next = new Int32Array(new SharedArrayBuffer(4 * passes));
  const workers = [0, 1].map(() => new Worker(new URL(import.meta.url), { workerData: { root, files, next: next.buffer, passes } }));
  for (let pass = 1; pass <= passes; pass++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    const used = process.cpuUsage(cpu);
    const line = `pass ${pass}: ${(performance.now() - started).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms`;
    process.stdout.write(`${line} (${files.length} files)\n`);
  }
  await Promise.all(workers.map((w) => w.terminate()));
  const listFile = path.join(os.tmpdir(), `colophon-pipeline-probe-${process.pid}.txt`);
  writeFileSync(listFile, files.join('\n'));
  const floor = spawnSync(process.execPath, [new URL('floors/hash-floor.mjs', import.meta.url).pathname, listFile, '2'], {
    encoding: 'utf8',
  });
  const { ms, cpuMs } = JSON.parse(floor.stdout);
  process.stdout.write(`floor (read + SHA-256, 2 threads): ${ms.toFixed(0)} ms, CPU ${cpuMs.toFixed(0)} ms\n`);
} else {
  const { analyzeManyForCatalog } = await import(bundle.href);
  const { root, files, passes } = workerData;
  const next = new Int32Array(workerData.next);
  // Each thread ends a pass with one claim past the last trip.
  const done = TRIP * (Math.ceil(files.length / TRIP) + 2);
  for (let pass = 0; pass < passes; pass++) {
    for (let i = Atomics.add(next, pass, TRIP); i < files.length; i = Atomics.add(next, pass, TRIP)) {
      const paths = files.slice(i, i + TRIP);
      const stats = paths.map((file) => {
        const { size, mtimeMs } = statSync(file);
        return { size, mtimeMs };
      });
      const result = await analyzeManyForCatalog({ paths, stats, options: { libraryRoot: root } });
      if (!result.ok) throw new Error(result.message);
    }
    parentPort.postMessage('pass');
    // Both threads start the next pass together, so a pass measures two busy threads, as a scan has.
    while (Atomics.load(next, pass) < done) await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
