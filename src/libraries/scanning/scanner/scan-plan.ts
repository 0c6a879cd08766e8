import type { ScanMode } from '../../../events/types.js';
import type { BookIndexRow, SeriesIndexRow } from './repository.js';
import { seriesNamedByOlderRule } from './series-rules.js';
import { walkLibrary, type FoundFile, type WalkOptions } from './walk.js';
import { walkLibraryOffThread } from './walk-thread.js';
import type { WorkItem } from './work-queue.js';

/**
 * What the catalog holds for one library, as a scan sees and updates it: books by path, series by folder,
 * and (rescans) the books whose file is gone, by hash for a move and by id for soft deletion.
 */
export class CatalogIndex {
  readonly byPath = new Map<string, BookIndexRow>();
  readonly seriesByKey = new Map<string, SeriesIndexRow>();
  /** Books whose file is gone, by hash: a new file with the same hash is the same book moved. */
  readonly moveCandidates = new Map<string, BookIndexRow[]>();
  /** Present books whose file is gone: soft-deleted after the scan unless they turn out moved. */
  readonly missing = new Map<string, BookIndexRow>();

  /**
   * Indexes the library's rows; returns the series named by an older naming rule (or before names came from
   * their books' agreement), to be named again, once.
   */
  load(books: readonly BookIndexRow[], series: readonly SeriesIndexRow[]): string[] {
    for (const b of books) this.byPath.set(b.path, b);
    const toRename: string[] = [];
    for (const s of series) {
      this.seriesByKey.set(s.path, s);
      if (s.deleted_at === null && seriesNamedByOlderRule(s.metadata)) toRename.push(s.id);
    }
    return toRename;
  }

  /** A book gone from this path, moved to a new file with the same hash (preferring one missing since this scan). */
  takeMoveCandidate(hash: string): BookIndexRow | undefined {
    const list = this.moveCandidates.get(hash);
    if (!list || list.length === 0) return undefined;
    const index = Math.max(
      0,
      list.findIndex((b) => b.deleted_at === null),
    );
    const [book] = list.splice(index, 1);
    if (book) this.missing.delete(book.id);
    return book;
  }
}

/**
 * The library's folder walked: on a first scan here, so that the first files are known at once (starting the
 * walk thread takes ~80 ms before the first file is known, and analysis waits for it, while the first
 * folders' stat() calls take a few ms through libuv); on a rescan in its own thread, while this one loads the
 * catalog index (see walkLibraryOffThread).
 */
export function walkFolder(
  root: string,
  firstScan: boolean,
  options: Pick<WalkOptions, 'signal' | 'onError'>,
): AsyncGenerator<FoundFile[]> {
  return firstScan ? walkLibrary(root, { ...options, concurrency: 64 }) : walkLibraryOffThread(root, options);
}

export interface RescanPlan {
  /** Files to analyse (new, changed, every file in deep mode) or to restore. */
  work: WorkItem[];
  /** Unchanged present books: done. */
  unchanged: number;
  /** Unchanged books without a KOReader id yet. */
  koreaderBackfill: BookIndexRow[];
}

/**
 * A rescan's plan: the files found compared with the catalog by path, size and mtime; the books whose file
 * is gone recorded in the index as missing and as move candidates. A book under a folder that could not be
 * read is neither (`unreadable`: relative folder paths ending in `/`).
 */
export function planRescan(
  index: CatalogIndex,
  books: readonly BookIndexRow[],
  found: readonly FoundFile[],
  mode: ScanMode,
  unreadable: readonly string[],
): RescanPlan {
  const seen = new Set<string>();
  const plan: RescanPlan = { work: [], unchanged: 0, koreaderBackfill: [] };
  for (const file of found) {
    seen.add(file.relPath);
    const existing = index.byPath.get(file.relPath);
    const same = existing !== undefined && existing.size === file.size && existing.mtime_ms === file.mtimeMs;
    if (same && mode === 'normal') {
      if (existing.hash !== null && existing.koreader_md5 === null) plan.koreaderBackfill.push(existing);
      if (existing.deleted_at === null) {
        plan.unchanged++;
        continue;
      }
      if (existing.hash !== null) {
        plan.work.push({ file, existing, restoreOnly: true });
        continue;
      }
    }
    plan.work.push({ file, existing });
  }
  for (const book of books) {
    if (seen.has(book.path) || unreadable.some((dir) => book.path.startsWith(dir))) continue;
    if (book.deleted_at === null) index.missing.set(book.id, book);
    if (book.hash) {
      const list = index.moveCandidates.get(book.hash) ?? [];
      list.push(book);
      index.moveCandidates.set(book.hash, list);
    }
  }
  return plan;
}
