import path from 'node:path';
import type { CatalogAnalysis } from '../../../media/analysis/catalog-analysis.js';

/**
 * What the scanner needs from the media engine: hash + analyse one file (in worker threads, cancellable),
 * and hash alone (for files that cannot be analysed: they still get a content hash).
 */
export interface FileAnalyzer {
  /**
   * Format, size, mtime, SHA-256, pages and metadata (spec precedence, folder name included), the page list and
   * metadata already as the JSON the catalog stores, for several files at once (fewer trips between threads):
   * one result per file, in order, a file that cannot be analysed as its MediaError. Rejects only when cancelled.
   */
  analyzeMany(
    absolutePaths: readonly string[],
    options: {
      signal?: AbortSignal;
      libraryRoot?: string;
      /** Size and mtime as the walk saw each file, in order: spares the worker a stat(). */ stats?: ReadonlyArray<{
        size: number;
        mtimeMs: number;
      }>;
    },
  ): Promise<Array<CatalogAnalysis | Error>>;
  hash(absolutePath: string, signal?: AbortSignal): Promise<string>;
  /** No scan needs the workers now: they leave at once (the next analysis starts new ones). */
  releaseWorkers(): Promise<void>;
  /** Worker threads alive now. */
  threads(): number;
  close(): Promise<void>;
}

/** A title for a book the media engine could not read: its file name without the extension. */
export function titleFromFileName(fileName: string): string {
  return path.basename(fileName, path.extname(fileName));
}
