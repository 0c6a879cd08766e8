import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LoadResult {
  latency: { p50: number; p90: number; p97_5: number; p99: number; exact: { p50: number; p95: number; p99: number } };
  requests: { average: number };
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
  /** Unmeasured load first (autocannon's warmup), so the numbers describe a warm server, not JIT compilation. */
  warmup?: { connections: number; duration: number };
}

const SCRIPT = fileURLToPath(new URL('./autocannon-worker.mjs', import.meta.url));

/**
 * autocannon in a child process: the client gets its own core (the machines have two), so the numbers
 * describe the server rather than the server and its load generator sharing one event loop.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-load-'));
  const optionsFile = path.join(dir, 'options.json');
  writeFileSync(optionsFile, JSON.stringify(options));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, optionsFile], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      rmSync(dir, { recursive: true, force: true });
      if (err) reject(err);
      else resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}
