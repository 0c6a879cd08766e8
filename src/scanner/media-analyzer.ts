import { analyzeFile } from '../media/analyze.js';
import { hashFile } from '../media/hash.js';
import type { FileAnalyzer } from './analyzer.js';

export interface MediaAnalyzerOptions {
  /** Seconds one file may take before it is given up as an error. */
  fileTimeoutSeconds: number;
}

/**
 * The media engine's analysis for the scanner. Runs `analyzeFile` with a per-file timeout and the scan's
 * AbortSignal. (Replace with the media worker pool once it exports one: same interface.)
 */
export function createMediaAnalyzer(options: MediaAnalyzerOptions): FileAnalyzer {
  return {
    analyze: async (absolutePath, { signal, libraryRoot }) => {
      const timeout = AbortSignal.timeout(options.fileTimeoutSeconds * 1000);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        return await analyzeFile(absolutePath, { signal: combined, libraryRoot });
      } catch (err) {
        if (timeout.aborted && !signal?.aborted) throw new Error(`analysis timed out after ${options.fileTimeoutSeconds} s`, { cause: err });
        throw err;
      }
    },
    hash: (absolutePath, signal) => hashFile(absolutePath, signal),
    close: async () => undefined,
  };
}
