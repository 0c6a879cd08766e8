/* global process, URL, performance, Buffer */
// The scan floor (issue 22): read + SHA-256 of every file in 2 worker threads (argv[3], default 2), 1 MiB
// reads into a reused buffer. argv[2]: a file holding the paths, one a line. The workers start before the
// clock does; prints {"ms": …, "cpuMs": … (all threads), "bytes": …} as JSON.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

if (isMainThread) {
  const files = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
  const threads = Number(process.argv[3] ?? 2);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url), { workerData: { files, next: next.buffer } }));
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve)))); // ready
  const started = performance.now();
  const cpu = process.cpuUsage();
  const done = workers.map((w) => new Promise((resolve) => w.once('message', resolve)));
  for (const w of workers) w.postMessage('go');
  const bytes = (await Promise.all(done)).reduce((n, b) => n + b, 0);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  process.stdout.write(JSON.stringify({ ms, cpuMs, bytes }));
} else {
  const { files } = workerData;
  const next = new Int32Array(workerData.next);
  // 64 bytes into its allocation, never at a page boundary: a large allocation may come back page-aligned, and
  // on AMD Zen the kernel's copy from the page cache into a buffer at the same offset within a page as the cached
  // page costs ~50% more CPU (this floor: 1.8 s for the 2,000 books aligned, 1.2 s not, same machine). The floor
  // is the fastest plain read + hash, not the unlucky one; the scan's read buffers do the same (media/analysis/hash.ts).
  const buffer = Buffer.allocUnsafeSlow(1024 * 1024 + 64).subarray(64);
  parentPort.once('message', () => {
    let bytes = 0;
    for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) {
      const hash = createHash('sha256');
      const fd = openSync(files[i], 'r');
      try {
        for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null)) {
          hash.update(buffer.subarray(0, n));
          bytes += n;
        }
      } finally {
        closeSync(fd);
      }
      hash.digest();
    }
    parentPort.postMessage(bytes);
  });
  parentPort.postMessage('ready');
}
