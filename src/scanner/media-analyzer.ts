import { AnalysisPool } from '../media/index.js';
import type { FileAnalyzer } from './analyzer.js';

export interface MediaAnalyzerOptions {
  /** Worker threads. */
  threads: number;
  /** Seconds one file may take before its worker is stopped and the file recorded as an error. */
  fileTimeoutSeconds: number;
}

/**
 * The media engine's analysis pool for the scanner: every file is hashed and analysed in a worker thread
 * (large reads, isolated from hostile files, per-file timeout), and the scan's AbortSignal cancels in-flight
 * work.
 */
export function createMediaAnalyzer(options: MediaAnalyzerOptions): FileAnalyzer {
  const pool = new AnalysisPool({ threads: options.threads, timeoutMs: options.fileTimeoutSeconds * 1000 });
  return {
    analyzeMany: (absolutePaths, { signal, libraryRoot, stats }) =>
      pool.analyzeManyForCatalog(absolutePaths, { libraryRoot, signal, stats }),
    hash: (absolutePath, signal) => pool.hash(absolutePath, { signal }),
    close: () => pool.destroy(),
  };
}
