import path from 'node:path';
import type { CatalogAnalysis } from '../../../media/analysis/catalog-analysis.js';
import { koreaderPartialMd5File } from '../../../media/analysis/koreader-md5.js';
import type { FileAnalyzer } from './analyzer.js';
import type { FoundFile } from './walk.js';

/**
 * Files per trip to the media workers, and their size together. Each trip costs a message each way and often
 * wakes a sleeping worker: for small books a good part of their cost (2,000 books of 1 MB: 4 per trip scanned
 * ~7% faster than one, and 16 per trip ~8% faster again). The size cap keeps a trip short (tens of ms), so
 * that the workers share the last files of a scan, progress moves steadily, and a trip stays far inside the
 * time limit, which applies to the trip as a whole (one that overruns is redone file by file: see
 * analyzeManyForCatalog).
 */
export const FILES_PER_TRIP = 16;
export const BYTES_PER_TRIP = 32 * 1024 * 1024;

/** What the analysis of one file gave: its catalog analysis, or the error with the hashes still computed. */
export type Outcome =
  { ok: true; analysis: CatalogAnalysis } | { ok: false; hash: string | null; koreaderMd5: string | null; error: string };

/** Analyses files in one trip to the workers; a file that cannot be analysed still gets its hash if it can be read. */
export async function analyzeTrip(
  analyzer: () => FileAnalyzer,
  root: string,
  files: readonly FoundFile[],
  signal: AbortSignal,
): Promise<Outcome[]> {
  if (files.length === 0) return [];
  const absolute = files.map((file) => path.join(root, file.relPath));
  let results: Array<CatalogAnalysis | Error>;
  try {
    results = await analyzer().analyzeMany(absolute, { signal, libraryRoot: root, stats: files });
  } catch (err) {
    // Only cancellation rejects; the scan ends with the reason it was given.
    throw signal.aborted ? (signal.reason ?? err) : err;
  }
  return Promise.all(
    results.map(async (result, i): Promise<Outcome> => {
      if (!(result instanceof Error)) return { ok: true, analysis: result };
      let hash: string | null = null;
      let koreaderMd5: string | null = null;
      try {
        hash = await analyzer().hash(absolute[i]!, signal);
        koreaderMd5 = await koreaderPartialMd5File(absolute[i]!);
      } catch (hashErr) {
        if (signal.aborted) throw signal.reason ?? hashErr;
      }
      return { ok: false, hash, koreaderMd5, error: result.message };
    }),
  );
}
