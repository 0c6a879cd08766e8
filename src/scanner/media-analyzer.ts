import { AnalysisPool } from '../media/index.js';
import type { FileAnalyzer } from './analyzer.js';

export interface MediaAnalyzerOptions {
  /** Worker threads. */
  threads: number;
  /** Seconds one file may take before its worker is stopped and the file recorded as an error. */
  fileTimeoutSeconds: number;
}

/**
 * Seconds-scale, not the pool's default 30 s: a scan's workers hold ~50-100 MB each once warm, and a first scan
 * is followed at once by its cover task (its own pdf.js threads, sharp in this one); workers kept idle that long
 * stacked both in the process's peak. A scan keeps them busy without pause, so it never waits for a new one.
 */
const WORKER_IDLE_MS = 5_000;

/**
 * The media engine's analysis pool for the scanner: every file is hashed and analysed in a worker thread
 * (large reads, isolated from hostile files, per-file timeout), and the scan's AbortSignal cancels in-flight
 * work.
 */
export function createMediaAnalyzer(options: MediaAnalyzerOptions): FileAnalyzer {
  const pool = new AnalysisPool({
    threads: options.threads,
    timeoutMs: options.fileTimeoutSeconds * 1000,
    idleTimeoutMs: WORKER_IDLE_MS,
  });
  return {
    analyzeMany: (absolutePaths, { signal, libraryRoot, stats }) =>
      pool.analyzeManyForCatalog(absolutePaths, { libraryRoot, signal, stats }),
    hash: (absolutePath, signal) => pool.hash(absolutePath, { signal }),
    close: () => pool.destroy(),
  };
}
