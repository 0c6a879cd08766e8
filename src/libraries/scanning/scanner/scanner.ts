import { stat } from 'node:fs/promises';
import path from 'node:path';
import { nowIso } from '../../../db/ids.js';
import type { EventBus } from '../../../events/bus.js';
import { emptyScanCounters, type ScanCounters, type ScanEventName, type ScanMode } from '../../../events/types.js';
import { isAbortError } from '../../../media/errors.js';
import { koreaderPartialMd5File } from '../../../media/analysis/koreader-md5.js';
import { importsLists, parseScanningConfig } from '../../schemas.js';
import { analyzeTrip, BYTES_PER_TRIP, FILES_PER_TRIP } from './analysis-trip.js';
import { AnalysisStaging } from './analysis-staging.js';
import type { FileAnalyzer } from './analyzer.js';
import { BatchWriter } from './batch-writer.js';
import type { BookIndexRow, ScanRepository } from './repository.js';
import { CatalogIndex, planRescan, walkFolder } from './scan-plan.js';
import { excludeRules, type ExcludeRules } from './exclude.js';
import type { DecisionRepository } from './decisions.js';
import { targetsOf, underAny, walkTargets, withoutExcluded } from './targeted-walk.js';
import { entityEvent } from './scan-events.js';
import { SeriesRefresh } from './series-refresh.js';
import type { FoundFile } from './walk.js';
import { releaseWalkThread } from './walk-thread.js';
import { WorkQueue, type WorkItem } from './work-queue.js';

export interface ScannerDeps {
  repo: ScanRepository;
  bus: EventBus;
  /** Created on first use (worker threads start only when there is something to analyse). */
  analyzer: () => FileAnalyzer;
  /** The analyzer if it was ever created: told when no scan is running any more, so its workers leave. */
  existingAnalyzer?: () => FileAnalyzer | undefined;
  /** Files analysed at once (keep the worker pool busy: about twice its threads). */
  analysisConcurrency: number;
  /** Results per database transaction. */
  batchSize?: number;
  /** Minimum time between two progress reports. */
  progressIntervalMs?: number;
  log?: { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };
  /** Where the explainer's decisions are written (absent: not recorded). */
  decisions?: DecisionRepository;
}

export interface ScanRequest {
  libraryId: string;
  mode: ScanMode;
  /** The task running the scan (scan events name it). */
  taskId: string;
  signal: AbortSignal;
  onProgress?: (counters: ScanCounters, message: string) => void;
  /**
   * A targeted scan: only these folders (relative to the library root, `/` separators) are walked and compared;
   * books elsewhere are left as they are (moves into these folders are still recognised by hash). Absent: the
   * whole library.
   */
  paths?: readonly string[];
}

export interface ScanResult extends ScanCounters {
  library_id: string;
  mode: ScanMode;
}

export class LibraryNotFoundError extends Error {
  constructor(id: string) {
    super(`Library ${id} not found`);
  }
}

/** The library's folder is not there (an unmounted drive): the scan stops before it could delete anything. */
export class LibraryRootMissingError extends Error {
  constructor(root: string) {
    super(`The library folder ${root} is missing or not a folder (an unmounted drive?); nothing was changed`);
  }
}

/** Whether the library's folder is there and is a folder. */
export async function rootPresent(root: string): Promise<boolean> {
  return stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/**
 * Scans libraries: walk the folder -> compare path, size and mtime with the database -> hash and analyse new
 * or changed files (every file in deep mode) in the media worker pool -> recognise moves by hash before
 * soft-deleting missing files -> write series and books in batched transactions -> refresh the series that
 * changed -> entity and scan events. Safe to cancel at any point: committed batches are complete, missing
 * files are soft-deleted only after a complete walk and analysis, and the next scan finishes the job.
 */
export class LibraryScanner {
  /** Scans and re-analyses running now (several libraries can be scanned at once). */
  private running = 0;

  constructor(private readonly deps: ScannerDeps) {}

  /** Analysis worker threads alive now (none once no scan has needed them for a moment). */
  get analysisThreads(): number {
    return this.deps.existingAnalyzer?.()?.threads() ?? 0;
  }

  async scan(request: ScanRequest): Promise<ScanResult> {
    return this.whileRunning(() => this.scanLibrary(request));
  }

  /**
   * Runs one scan or re-analysis; when the last one running ends, the analysis workers leave at once rather than
   * after their idle time: a first scan's cover task starts right away, and both sets of threads would otherwise
   * be alive together (about 100 MB of a 10,000-book first scan's peak).
   */
  private async whileRunning<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      // Not awaited: the scan is done, and the threads end on their own.
      if (--this.running === 0)
        void this.deps
          .existingAnalyzer?.()
          ?.releaseWorkers()
          .catch(() => undefined);
    }
  }

  private async scanLibrary(request: ScanRequest): Promise<ScanResult> {
    const library = await this.deps.repo.library(request.libraryId);
    if (!library) throw new LibraryNotFoundError(request.libraryId);
    const config = parseScanningConfig(library.scanning_config);
    const targets = targetsOf(request.paths);
    const run = new ScanRun(
      this.deps,
      library.id,
      library.path,
      request.mode,
      request.signal,
      request.taskId,
      request.onProgress,
      targets !== null,
    );
    run.publishScan('scan_started');
    try {
      // Only a scan that sees the library's folder may decide that files are gone.
      if (!(await rootPresent(library.path))) throw new LibraryRootMissingError(library.path);
      const result = await run.scanFolder({ exclude: excludeRules(config.exclude), targets });
      await this.syncLists(library);
      const finishedAt = nowIso();
      await this.deps.repo.markScanned(library.id, finishedAt);
      // The library's last_scanned_at changed (and its counts, most likely).
      this.deps.bus.publish('library_updated', { type: 'library_updated', library_id: library.id, timestamp: finishedAt });
      run.publishScan('scan_completed');
      return result;
    } catch (err) {
      if (request.signal.aborted || isAbortError(err)) run.publishScan('scan_cancelled');
      else run.publishScan('scan_failed', err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  /** Re-analyses the given books of a library (analyze_book / analyze_series tasks), as a deep scan would. */
  async analyzeBooks(
    libraryId: string,
    bookIds: readonly string[],
    signal: AbortSignal,
    onProgress?: ScanRequest['onProgress'],
  ): Promise<ScanResult> {
    return this.whileRunning(async () => {
      const library = await this.deps.repo.library(libraryId);
      if (!library) throw new LibraryNotFoundError(libraryId);
      const run = new ScanRun(this.deps, library.id, library.path, 'deep', signal, null, onProgress);
      const result = await run.analyzeBooks(bookIds);
      await this.syncLists(library);
      return result;
    });
  }

  /**
   * After a scan of a library that imports lists (`scanning_config.import_lists`, on by default): the shared
   * collections (ComicInfo `SeriesGroup`) and read lists (`StoryArc`, `AlternateSeries`) made by scans are brought
   * in step with the present books of every such library (list-repository.ts). A name a person's shared list
   * holds is left to it, and said in the log. The catalog is written by then: a failure here is logged, not the
   * scan's.
   */
  private async syncLists(library: { id: string; scanning_config: string }): Promise<void> {
    if (!importsLists(parseScanningConfig(library.scanning_config))) return;
    try {
      const { collections, readLists } = await this.deps.repo.syncComicInfoLists();
      if (collections.blocked.length > 0 || readLists.blocked.length > 0)
        this.deps.log?.info?.(
          { library_id: library.id, collections: collections.blocked, read_lists: readLists.blocked },
          'scan: lists from ComicInfo left to shared lists of the same name a person made or changed',
        );
    } catch (err) {
      this.deps.log?.warn({ library_id: library.id, err }, 'scan: lists from ComicInfo not brought in step (the next scan tries again)');
    }
  }
}

/**
 * One scan (or re-analysis) of one library, start to end: the plan (scan-plan.ts), analysis trips to the
 * workers (analysis-trip.ts), staging of their results (analysis-staging.ts), the batch writer
 * (batch-writer.ts) and the series refresh (series-refresh.ts) put together, with progress reports.
 */
class ScanRun {
  private readonly counters = emptyScanCounters();
  private readonly index = new CatalogIndex();
  private readonly series: SeriesRefresh;
  private readonly staging: AnalysisStaging;
  private readonly writer: BatchWriter;
  private lastReport = 0;

  constructor(
    private readonly deps: ScannerDeps,
    private readonly libraryId: string,
    private readonly root: string,
    private readonly mode: ScanMode,
    private readonly signal: AbortSignal,
    private readonly taskId: string | null,
    private readonly onProgress?: ScanRequest['onProgress'],
    targeted = false,
  ) {
    this.series = new SeriesRefresh(deps.repo, deps.bus, libraryId);
    this.staging = new AnalysisStaging(libraryId, mode, this.index, this.series, this.counters, targeted);
    this.writer = new BatchWriter(deps.repo, deps.bus, this.counters, deps.decisions, deps.log);
  }

  async scanFolder(scope: { exclude: ExcludeRules; targets: readonly string[] | null }): Promise<ScanResult> {
    // 1. Walk the folder while the database index loads, then compare: unchanged files are done here.
    const firstScan = !(await this.deps.repo.hasBooks(this.libraryId));
    const loading = Promise.all([this.deps.repo.bookIndex(this.libraryId), this.deps.repo.seriesIndex(this.libraryId)]);
    loading.catch(() => undefined);
    const foundFiles: FoundFile[] = [];
    // A folder that cannot be read (permissions, I/O errors, too many open files) is not a folder whose books
    // are gone: they are kept as they are, neither soft-deleted nor taken for the source of a move.
    const unreadable: string[] = [];
    const walkOptions = {
      signal: this.signal,
      onError: (dir: string, err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        if (code === 'ENOENT') return; // removed during the walk: gone indeed
        if (code === 'EILSEQ') {
          this.counters.errors++;
          this.deps.log?.warn({ file: dir, err }, 'scan: file skipped, its name is not valid UTF-8 (rename it)');
          return;
        }
        unreadable.push(`${dir}/`);
        this.counters.errors++;
        this.deps.log?.warn({ dir, err }, 'scan: folder not readable, its books are kept as they are');
      },
    };
    const walk = withoutExcluded(
      scope.targets ? walkTargets(this.root, scope.targets, walkOptions) : walkFolder(this.root, firstScan, walkOptions),
      scope.exclude,
    );
    const firstFound = walk.next();
    firstFound.catch(() => undefined);
    const [books, series] = await loading;
    for (const id of this.index.load(books, series)) this.series.touch(id);
    const discovered = async (each: (file: FoundFile) => void) => {
      for (let found = await firstFound; !found.done; found = await walk.next()) {
        for (const file of found.value) {
          foundFiles.push(file);
          each(file);
        }
        this.counters.files_discovered = foundFiles.length;
        this.report('Discovering files');
      }
    };

    if (books.length === 0) {
      // A library's first scan: nothing to compare, move or delete, so analysis starts with the first files found
      // instead of after the whole walk (stat()ing thousands of files takes a while).
      const queue = new WorkQueue();
      const processing = this.process(queue, true, true);
      processing.catch(() => undefined);
      try {
        await discovered((file) => queue.push({ file, existing: undefined }));
      } catch (err) {
        // The walk failed or was cancelled: what is being analysed is finished and written, nothing more.
        queue.close({ dropPending: true });
        await processing.catch(() => undefined);
        throw err;
      }
      queue.close();
      if (foundFiles.length > 0) releaseWalkThread();
      await processing;
      await this.series.run();
      this.report('Scan complete', true);
      return this.result();
    }
    await discovered(() => undefined);

    // 2. Compare with the catalog; books whose file is gone are candidates for a move (by hash) before they are
    // soft-deleted.
    // A targeted scan compares only the books under its folders (and soft-deleted ones, which a move may restore).
    const compared = scope.targets ? books.filter((b) => b.deleted_at !== null || underAny(scope.targets!, b.path)) : books;
    const plan = planRescan(this.index, compared, foundFiles, this.mode, unreadable);
    this.counters.files_processed += plan.unchanged;
    this.counters.books_unchanged += plan.unchanged;

    // 3. Analyse and write. The walk thread is kept for unchanged rescans; here the media workers need the memory.
    const needsAnalysis = plan.work.some((w) => !w.restoreOnly);
    if (needsAnalysis) releaseWalkThread();
    await this.process(WorkQueue.of(plan.work), true, needsAnalysis);
    await this.backfillKoreaderMd5(plan.koreaderBackfill);

    // 4. Soft-delete what is still missing, then refresh the series that changed.
    this.signal.throwIfAborted();
    const gone = [...this.index.missing.values()];
    if (gone.length > 0) {
      await this.deps.repo.softDeleteBooks(
        gone.map((b) => b.id),
        nowIso(),
      );
      this.counters.books_deleted += gone.length;
      await this.deps.decisions
        ?.record(
          gone.map((b) => ({
            library_id: this.libraryId,
            path: b.path,
            book_id: b.id,
            outcome: 'deleted' as const,
            detail: { reason: 'gone' as const, mode: this.mode, targeted: scope.targets !== null, hash: b.hash },
          })),
        )
        .catch((err: unknown) => this.deps.log?.warn({ err }, 'scan: decisions for the explainer not recorded'));
      for (const b of gone) {
        this.series.touch(b.series_id);
        const event = entityEvent(this.libraryId, 'book_deleted', b.series_id, b.id);
        this.deps.bus.publish(event.type, event);
      }
    }
    await this.series.run();
    this.report('Scan complete', true);
    return this.result();
  }

  /**
   * KOReader ids for unchanged books analysed before they were computed: ~12 KiB of reads each, once per book,
   * instead of a full re-analysis. A file that cannot be read keeps null and is tried again next scan.
   */
  private async backfillKoreaderMd5(books: readonly BookIndexRow[]): Promise<void> {
    const rows: { id: string; koreaderMd5: string }[] = [];
    for (const book of books) {
      this.signal.throwIfAborted();
      try {
        rows.push({ id: book.id, koreaderMd5: await koreaderPartialMd5File(path.join(this.root, book.path)) });
      } catch {
        continue;
      }
      book.koreader_md5 = rows[rows.length - 1]!.koreaderMd5;
    }
    if (rows.length > 0) await this.deps.repo.setKoreaderMd5(rows);
  }

  async analyzeBooks(bookIds: readonly string[]): Promise<ScanResult> {
    const rows = (await this.deps.repo.booksById(bookIds)).filter((b) => b.library_id === this.libraryId && b.deleted_at === null);
    this.index.load([], await this.deps.repo.seriesIndex(this.libraryId));
    const work: WorkItem[] = [];
    for (const row of rows) {
      const index: BookIndexRow = {
        id: row.id,
        path: row.path,
        size: Number(row.size),
        mtime_ms: Number(row.mtime_ms),
        hash: row.hash,
        koreader_md5: row.koreader_md5,
        series_id: row.series_id,
        deleted_at: row.deleted_at,
        analysis_error: row.analysis_error,
      };
      this.index.byPath.set(row.path, index);
      const info = await stat(path.join(this.root, row.path)).catch(() => null);
      work.push({
        file: { relPath: row.path, size: info?.size ?? index.size, mtimeMs: info ? Math.floor(info.mtimeMs) : index.mtime_ms },
        existing: index,
      });
      this.counters.files_discovered++;
    }
    await this.process(
      WorkQueue.of(work),
      false,
      work.some((w) => !w.restoreOnly),
    );
    await this.series.run();
    this.report('Analysis complete', true);
    return this.result();
  }

  private result(): ScanResult {
    return { library_id: this.libraryId, mode: this.mode, ...this.counters };
  }

  /** Analyses work items with bounded concurrency; results are staged in order of completion and written in batches. */
  private async process(work: WorkQueue, allowMoves: boolean, needsAnalysis: boolean): Promise<void> {
    const batchSize = this.deps.batchSize ?? 200;
    const loop = async () => {
      for (
        let items = await work.take(FILES_PER_TRIP, BYTES_PER_TRIP);
        items.length > 0;
        items = await work.take(FILES_PER_TRIP, BYTES_PER_TRIP)
      ) {
        this.signal.throwIfAborted();
        const files = items.filter((item) => !item.restoreOnly).map((item) => item.file);
        const outcomes = await analyzeTrip(this.deps.analyzer, this.root, files, this.signal);
        this.signal.throwIfAborted();
        for (const item of items) this.staging.stage(item, item.restoreOnly ? null : outcomes.shift()!, allowMoves);
        if (this.staging.size >= batchSize) await this.writer.write(this.staging.take());
        this.report('Analysing files');
      }
    };
    const concurrency = needsAnalysis ? Math.max(1, this.deps.analysisConcurrency) : 1;
    const results = await Promise.allSettled(Array.from({ length: concurrency }, loop));
    // Let in-flight writes settle before deciding the outcome, so nothing writes after the task has ended.
    await this.writer.settled();
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    this.signal.throwIfAborted();
    await this.writer.write(this.staging.take());
  }

  private report(message: string, force = false): void {
    const now = Date.now();
    if (!force && now - this.lastReport < (this.deps.progressIntervalMs ?? 250)) return;
    this.lastReport = now;
    this.onProgress?.({ ...this.counters }, message);
    if (this.taskId) this.publishScan('scan_progress');
  }

  publishScan(type: ScanEventName, error?: string): void {
    if (!this.taskId) return;
    this.deps.bus.publish(type, {
      type,
      library_id: this.libraryId,
      task_id: this.taskId,
      mode: this.mode,
      timestamp: nowIso(),
      ...this.counters,
      ...(error ? { error } : {}),
    });
  }
}
