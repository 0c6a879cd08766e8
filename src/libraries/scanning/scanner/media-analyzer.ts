import { AnalysisPool } from '../../../media/index.js';
import type { FileAnalyzer } from './analyzer.js';

export interface MediaAnalyzerOptions {
  /** Worker threads. */
  threads: number;
  /** Seconds one file may take before its worker is stopped and the file recorded as an error. */
  fileTimeoutSeconds: number;
}

/**
 * Seconds-scale, not the pool's default 30 s: a scan's workers hold ~50 MB each once warm. The scanner also lets
 * them go the moment its last scan ends (`releaseWorkers`), since a first scan is followed at once by its cover
 * task (its own pdf.js thread, sharp in this one) and the two stacked in the process's peak; this bounds what
 * analysis outside a scan keeps.
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
    releaseWorkers: () => pool.destroy(),
    threads: () => pool.threads,
    close: () => pool.destroy(),
  };
}
