import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Updateable } from 'kysely';
import type { BooksTable } from '../db/tables/catalog.js';
import { newId, nowIso } from '../db/ids.js';
import type { EventBus } from '../events/bus.js';
import {
  emptyScanCounters,
  type EntityEvent,
  type EntityEventName,
  type ScanCounters,
  type ScanEventName,
  type ScanMode,
} from '../events/types.js';
import { isAbortError } from '../media/errors.js';
import { catalogColumns, type CatalogAnalysis } from '../media/analysis/catalog-analysis.js';
import { koreaderNameMd5, koreaderPartialMd5File } from '../media/analysis/koreader-md5.js';
import { titleFromFileName, type FileAnalyzer } from './analyzer.js';
import type { BookIndexRow, BookInsert, CatalogBatch, ScanRepository, SeriesIndexRow, SeriesInsert } from './repository.js';
import { aggregateSeries, initialSeriesName, seriesKeyOf, seriesNameSource, sortNameOf } from './series-rules.js';
import { walkLibrary, type FoundFile } from './walk.js';
import { releaseWalkThread, walkLibraryOffThread } from './walk-thread.js';

export interface ScannerDeps {
  repo: ScanRepository;
  bus: EventBus;
  /** Created on first use (worker threads start only when there is something to analyse). */
  analyzer: () => FileAnalyzer;
  /** Files analysed at once (keep the worker pool busy: about twice its threads). */
  analysisConcurrency: number;
  /** Results per database transaction. */
  batchSize?: number;
  /** Minimum time between two progress reports. */
  progressIntervalMs?: number;
  log?: { warn(obj: object, msg: string): void };
}

export interface ScanRequest {
  libraryId: string;
  mode: ScanMode;
  /** The task running the scan (scan events name it). */
  taskId: string;
  signal: AbortSignal;
  onProgress?: (counters: ScanCounters, message: string) => void;
}

export interface ScanResult extends ScanCounters {
  library_id: string;
  mode: ScanMode;
  /** Books re-analysed without being new, changed or deleted (deep scans). */
  books_unchanged: number;
}

export class LibraryNotFoundError extends Error {
  constructor(id: string) {
    super(`Library ${id} not found`);
  }
}

/**
 * Scans libraries: walk the folder -> compare path, size and mtime with the database -> hash and analyse new
 * or changed files (every file in deep mode) in the media worker pool -> recognise moves by hash before
 * soft-deleting missing files -> write series and books in batched transactions -> refresh the series that
 * changed -> entity and scan events. Safe to cancel at any point: committed batches are complete, missing
 * files are soft-deleted only after a complete walk and analysis, and the next scan finishes the job.
 */
export class LibraryScanner {
  constructor(private readonly deps: ScannerDeps) {}

  async scan(request: ScanRequest): Promise<ScanResult> {
    const library = await this.deps.repo.library(request.libraryId);
    if (!library) throw new LibraryNotFoundError(request.libraryId);
    const run = new ScanRun(this.deps, library.id, library.path, request.mode, request.signal, request.taskId, request.onProgress);
    run.publishScan('scan_started');
    try {
      const result = await run.scanFolder();
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
    const library = await this.deps.repo.library(libraryId);
    if (!library) throw new LibraryNotFoundError(libraryId);
    const run = new ScanRun(this.deps, library.id, library.path, 'deep', signal, null, onProgress);
    return run.analyzeBooks(bookIds);
  }
}

interface WorkItem {
  file: FoundFile;
  existing: BookIndexRow | undefined;
  /** A soft-deleted book whose file is back unchanged: restore without analysis. */
  restoreOnly?: boolean;
}

/** Work handed out to the analysis loops: all of it at once, or as a walk finds it (a library's first scan). */
class WorkQueue {
  private readonly items: WorkItem[] = [];
  private next = 0;
  private closed = false;
  private wake: (() => void) | null = null;

  static of(items: readonly WorkItem[]): WorkQueue {
    const queue = new WorkQueue();
    for (const item of items) queue.push(item);
    queue.close();
    return queue;
  }

  push(item: WorkItem): void {
    this.items.push(item);
    this.wakeUp();
  }

  /** No more items; `dropPending` also forgets those not yet taken. */
  close(options: { dropPending?: boolean } = {}): void {
    if (options.dropPending) this.next = this.items.length;
    this.closed = true;
    this.wakeUp();
  }

  /**
   * Up to `count` items of at most `bytes` together (at least one item), waiting for one while the queue is
   * open; empty once it is closed and empty.
   */
  async take(count: number, bytes: number): Promise<WorkItem[]> {
    for (;;) {
      if (this.next < this.items.length) {
        const taken: WorkItem[] = [];
        let size = 0;
        while (this.next < this.items.length && taken.length < count) {
          const item = this.items[this.next]!;
          if (taken.length > 0 && size + item.file.size > bytes) break;
          size += item.file.size;
          taken.push(item);
          this.next++;
        }
        return taken;
      }
      if (this.closed) return [];
      await new Promise<void>((resolve) => {
        const previous = this.wake;
        this.wake = () => {
          previous?.();
          resolve();
        };
      });
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/**
 * Files per trip to the media workers, and their size together. Each trip costs a message each way and often
 * wakes a sleeping worker: for small books a good part of their cost (2,000 books of 1 MB: 4 per trip scanned
 * ~7% faster than one, and 16 per trip ~8% faster again). The size cap keeps a trip short (tens of ms), so
 * that the workers share the last files of a scan, progress moves steadily, and a trip stays far inside the
 * time limit, which applies to the trip as a whole (one that overruns is redone file by file: see
 * analyzeManyForCatalog).
 */
const FILES_PER_TASK = 16;
const BYTES_PER_TASK = 32 * 1024 * 1024;

type Outcome = { ok: true; analysis: CatalogAnalysis } | { ok: false; hash: string | null; koreaderMd5: string | null; error: string };

interface PendingUpdate {
  id: string;
  changes: Updateable<BooksTable>;
  /** Deep scans: drop the update when it changes nothing, and count it as updated only when it does. */
  compare: boolean;
  events: EntityEvent[];
  counter: 'books_updated' | 'books_restored' | null;
}

class ScanRun {
  private readonly counters = emptyScanCounters();
  private readonly byPath = new Map<string, BookIndexRow>();
  private readonly seriesByKey = new Map<string, SeriesIndexRow>();
  private readonly touchedSeries = new Set<string>();
  private readonly createdSeries = new Set<string>();
  private readonly moveCandidates = new Map<string, BookIndexRow[]>();
  private readonly missing = new Map<string, BookIndexRow>();
  private batch = this.emptyBatch();
  private writing: Promise<void> = Promise.resolve();
  private lastReport = 0;
  private booksUnchanged = 0;

  constructor(
    private readonly deps: ScannerDeps,
    private readonly libraryId: string,
    private readonly root: string,
    private readonly mode: ScanMode,
    private readonly signal: AbortSignal,
    private readonly taskId: string | null,
    private readonly onProgress?: ScanRequest['onProgress'],
  ) {}

  private emptyBatch() {
    return {
      newSeries: [] as SeriesInsert[],
      restoreSeries: [] as string[],
      insertBooks: [] as BookInsert[],
      updates: [] as PendingUpdate[],
      events: [] as EntityEvent[],
      size: 0,
    };
  }

  async scanFolder(): Promise<ScanResult> {
    // 1. Walk the folder while the database index loads, then compare: unchanged files are done here.
    const firstScan = !(await this.deps.repo.hasBooks(this.libraryId));
    const index = Promise.all([this.deps.repo.bookIndex(this.libraryId), this.deps.repo.seriesIndex(this.libraryId)]);
    index.catch(() => undefined);
    const foundFiles: FoundFile[] = [];
    // A folder that cannot be read (permissions, I/O errors, too many open files) is not a folder whose books
    // are gone: they are kept as they are, neither soft-deleted nor taken for the source of a move.
    const unreadable: string[] = [];
    const walkOptions = {
      signal: this.signal,
      onError: (dir: string, err: unknown) => {
        if ((err as { code?: unknown } | null)?.code === 'ENOENT') return; // removed during the walk: gone indeed
        unreadable.push(`${dir}/`);
        this.counters.errors++;
        this.deps.log?.warn({ dir, err }, 'scan: folder not readable, its books are kept as they are');
      },
    };
    // A rescan walks in its own thread while this one loads the index (see walkLibraryOffThread). A first scan
    // walks here: starting that thread takes ~80 ms before the first file is known, and analysis waits for it,
    // while the first folders' stat() calls take a few ms through libuv.
    const walk = firstScan ? walkLibrary(this.root, { ...walkOptions, concurrency: 64 }) : walkLibraryOffThread(this.root, walkOptions);
    const firstFound = walk.next();
    firstFound.catch(() => undefined);
    const [books, series] = await index;
    for (const b of books) this.byPath.set(b.path, b);
    for (const s of series) {
      this.seriesByKey.set(s.path, s);
      // Named before names came from their books' agreement (no name source recorded): named again, once.
      if (s.deleted_at === null && seriesNameSource(s.metadata) === null) this.touchedSeries.add(s.id);
    }
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
      await this.refreshSeries();
      this.report('Scan complete', true);
      return this.result();
    }
    await discovered(() => undefined);

    const seen = new Set<string>();
    const work: WorkItem[] = [];
    const koreaderBackfill: BookIndexRow[] = [];
    for (const file of foundFiles) {
      seen.add(file.relPath);
      const existing = this.byPath.get(file.relPath);
      const same = existing !== undefined && existing.size === file.size && existing.mtime_ms === file.mtimeMs;
      if (same && this.mode === 'normal') {
        if (existing.hash !== null && existing.koreader_md5 === null) koreaderBackfill.push(existing);
        if (existing.deleted_at === null) {
          this.counters.files_processed++;
          continue;
        }
        if (existing.hash !== null) {
          work.push({ file, existing, restoreOnly: true });
          continue;
        }
      }
      work.push({ file, existing });
    }

    // 2. Books whose file is gone: candidates for a move (by hash) before they are soft-deleted.
    for (const book of books) {
      if (seen.has(book.path) || unreadable.some((dir) => book.path.startsWith(dir))) continue;
      if (book.deleted_at === null) this.missing.set(book.id, book);
      if (book.hash) {
        const list = this.moveCandidates.get(book.hash) ?? [];
        list.push(book);
        this.moveCandidates.set(book.hash, list);
      }
    }

    // 3. Analyse and write. The walk thread is kept for unchanged rescans; here the media workers need the memory.
    const needsAnalysis = work.some((w) => !w.restoreOnly);
    if (needsAnalysis) releaseWalkThread();
    await this.process(WorkQueue.of(work), true, needsAnalysis);
    await this.backfillKoreaderMd5(koreaderBackfill);

    // 4. Soft-delete what is still missing, then refresh the series that changed.
    this.signal.throwIfAborted();
    const gone = [...this.missing.values()];
    if (gone.length > 0) {
      await this.deps.repo.softDeleteBooks(
        gone.map((b) => b.id),
        nowIso(),
      );
      this.counters.books_deleted += gone.length;
      for (const b of gone) {
        this.touchedSeries.add(b.series_id);
        this.emit('book_deleted', b.series_id, b.id);
      }
    }
    await this.refreshSeries();
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
    for (const s of await this.deps.repo.seriesIndex(this.libraryId)) this.seriesByKey.set(s.path, s);
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
      this.byPath.set(row.path, index);
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
    await this.refreshSeries();
    this.report('Analysis complete', true);
    return this.result();
  }

  private result(): ScanResult {
    return { library_id: this.libraryId, mode: this.mode, ...this.counters, books_unchanged: this.booksUnchanged };
  }

  /** Analyses work items with bounded concurrency; results are staged in order of completion and flushed in batches. */
  private async process(work: WorkQueue, allowMoves: boolean, needsAnalysis: boolean): Promise<void> {
    const batchSize = this.deps.batchSize ?? 200;
    const worker = async () => {
      for (
        let items = await work.take(FILES_PER_TASK, BYTES_PER_TASK);
        items.length > 0;
        items = await work.take(FILES_PER_TASK, BYTES_PER_TASK)
      ) {
        this.signal.throwIfAborted();
        const outcomes = await this.analyze(items.filter((item) => !item.restoreOnly).map((item) => item.file));
        this.signal.throwIfAborted();
        for (const item of items) this.stage(item, item.restoreOnly ? null : outcomes.shift()!, allowMoves);
        if (this.batch.size >= batchSize) await this.flush();
        this.report('Analysing files');
      }
    };
    const concurrency = needsAnalysis ? Math.max(1, this.deps.analysisConcurrency) : 1;
    const results = await Promise.allSettled(Array.from({ length: concurrency }, worker));
    // Let in-flight writes settle before deciding the outcome, so nothing writes after the task has ended.
    await this.writing.catch(() => undefined);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    this.signal.throwIfAborted();
    await this.flush();
  }

  /** Analyses files in one trip to the workers; a file that cannot be analysed still gets its hash if it can be read. */
  private async analyze(files: readonly FoundFile[]): Promise<Outcome[]> {
    if (files.length === 0) return [];
    const absolute = files.map((file) => path.join(this.root, file.relPath));
    let results: Array<CatalogAnalysis | Error>;
    try {
      results = await this.deps.analyzer().analyzeMany(absolute, { signal: this.signal, libraryRoot: this.root, stats: files });
    } catch (err) {
      // Only cancellation rejects; the scan ends with the reason it was given.
      throw this.signal.aborted ? (this.signal.reason ?? err) : err;
    }
    return Promise.all(
      results.map(async (result, i): Promise<Outcome> => {
        if (!(result instanceof Error)) return { ok: true, analysis: result };
        let hash: string | null = null;
        let koreaderMd5: string | null = null;
        try {
          hash = await this.deps.analyzer().hash(absolute[i]!, this.signal);
          koreaderMd5 = await koreaderPartialMd5File(absolute[i]!);
        } catch (hashErr) {
          if (this.signal.aborted) throw this.signal.reason ?? hashErr;
        }
        return { ok: false, hash, koreaderMd5, error: result.message };
      }),
    );
  }

  /** Turns one result into rows of the current batch (synchronous: the in-memory state stays consistent). */
  private stage(item: WorkItem, outcome: Outcome | null, allowMoves: boolean): void {
    const now = nowIso();
    const { file } = item;
    const fileName = path.posix.basename(file.relPath);
    const metadata = outcome?.ok ? outcome.analysis.fields : null;
    const seriesId = this.ensureSeries(file.relPath, metadata);
    this.counters.files_processed++;
    if (outcome && !outcome.ok) this.counters.errors++;
    this.batch.size++;

    const existing = item.existing;
    if (existing) {
      const wasDeleted = existing.deleted_at !== null;
      const base: Updateable<BooksTable> = { series_id: seriesId, deleted_at: null, size: file.size, mtime_ms: file.mtimeMs };
      let changes: Updateable<BooksTable> = base;
      const events: EntityEvent[] = [];
      if (outcome) {
        const hash = outcome.ok ? outcome.analysis.hash : outcome.hash;
        const contentChanged = hash !== existing.hash;
        const reanalyse = this.mode === 'deep' || contentChanged || existing.analysis_error !== null || !outcome.ok;
        if (reanalyse) changes = { ...base, ...this.analysisColumns(outcome, fileName, now) };
        if (contentChanged && existing.hash !== null && outcome.ok) events.push(this.event('cover_updated', seriesId, existing.id));
      }
      if (existing.series_id !== seriesId) this.touchedSeries.add(existing.series_id);
      this.touchedSeries.add(seriesId);
      events.unshift(this.event(wasDeleted ? 'book_created' : 'book_updated', seriesId, existing.id));
      existing.deleted_at = null;
      existing.series_id = seriesId;
      this.batch.updates.push({
        id: existing.id,
        changes: { ...changes, updated_at: now },
        compare: !wasDeleted,
        events,
        counter: wasDeleted ? 'books_restored' : 'books_updated',
      });
      return;
    }

    const hash = outcome ? (outcome.ok ? outcome.analysis.hash : outcome.hash) : null;
    const moved = allowMoves && hash ? this.takeMoveCandidate(hash) : undefined;
    if (moved) {
      this.byPath.delete(moved.path);
      const wasDeleted = moved.deleted_at !== null;
      this.touchedSeries.add(moved.series_id);
      this.touchedSeries.add(seriesId);
      moved.path = file.relPath;
      moved.deleted_at = null;
      moved.series_id = seriesId;
      this.byPath.set(file.relPath, moved);
      this.batch.updates.push({
        id: moved.id,
        changes: {
          path: file.relPath,
          file_name: fileName,
          koreader_name_md5: koreaderNameMd5(fileName),
          series_id: seriesId,
          size: file.size,
          mtime_ms: file.mtimeMs,
          deleted_at: null,
          updated_at: now,
        },
        compare: false,
        events: [this.event(wasDeleted ? 'book_created' : 'book_updated', seriesId, moved.id)],
        counter: wasDeleted ? 'books_restored' : 'books_updated',
      });
      return;
    }

    const id = newId();
    this.touchedSeries.add(seriesId);
    this.batch.insertBooks.push({
      id,
      library_id: this.libraryId,
      series_id: seriesId,
      path: file.relPath,
      file_name: fileName,
      koreader_name_md5: koreaderNameMd5(fileName),
      size: file.size,
      mtime_ms: file.mtimeMs,
      ...this.analysisColumns(outcome ?? { ok: false, hash: null, koreaderMd5: null, error: 'not analysed' }, fileName, now),
      created_at: now,
      updated_at: now,
      deleted_at: null,
    } as BookInsert);
    this.byPath.set(file.relPath, {
      id,
      path: file.relPath,
      size: file.size,
      mtime_ms: file.mtimeMs,
      hash,
      koreader_md5: outcome?.ok ? outcome.analysis.koreaderMd5 : (outcome?.koreaderMd5 ?? null),
      series_id: seriesId,
      deleted_at: null,
      analysis_error: null,
    });
    this.counters.books_added++;
    this.batch.events.push(this.event('book_created', seriesId, id));
  }

  /** Columns a (re-)analysis sets. A failed analysis keeps a usable title and records the error. */
  private analysisColumns(outcome: Outcome, fileName: string, now: string) {
    if (!outcome.ok) {
      return {
        hash: outcome.hash,
        koreader_md5: outcome.koreaderMd5,
        analysis_error: outcome.error,
        analyzed_at: now,
        format: formatFromExtension(fileName),
        page_count: 0,
        pages: '[]',
        title: titleFromFileName(fileName),
        ...catalogColumns(null),
        genres: '[]',
        tags: '[]',
        authors: '[]',
        metadata: '{}',
        cover_page: null,
      };
    }
    const a = outcome.analysis;
    const m = a.fields;
    return {
      hash: a.hash,
      koreader_md5: a.koreaderMd5,
      analysis_error: null,
      analyzed_at: now,
      format: a.format,
      page_count: a.pageCount,
      pages: a.pagesJson,
      title: m.title?.trim() || titleFromFileName(fileName),
      ...catalogColumns(m),
      genres: a.genresJson,
      tags: a.tagsJson,
      authors: a.authorsJson,
      metadata: a.metadataJson,
      cover_page: a.coverPage,
    };
  }

  private takeMoveCandidate(hash: string): BookIndexRow | undefined {
    const list = this.moveCandidates.get(hash);
    if (!list || list.length === 0) return undefined;
    // Prefer a book that went missing in this scan over one deleted earlier.
    const index = Math.max(
      0,
      list.findIndex((b) => b.deleted_at === null),
    );
    const [book] = list.splice(index, 1);
    if (book) this.missing.delete(book.id);
    return book;
  }

  private ensureSeries(relPath: string, metadata: CatalogAnalysis['fields'] | null): string {
    const key = seriesKeyOf(relPath);
    const now = nowIso();
    let series = this.seriesByKey.get(key);
    if (!series) {
      const name = initialSeriesName(key, relPath, metadata);
      series = { id: newId(), path: key, name, deleted_at: null };
      this.seriesByKey.set(key, series);
      this.createdSeries.add(series.id);
      this.counters.series_created++;
      this.batch.newSeries.push({
        id: series.id,
        library_id: this.libraryId,
        path: key,
        name,
        sort_name: sortNameOf(name),
        title: null,
        summary: null,
        publisher: null,
        status: null,
        language: null,
        age_rating: null,
        reading_direction: null,
        year: null,
        genres: '[]',
        tags: '[]',
        external_id: null,
        metadata: '{}',
        book_count: 0,
        total_size: 0,
        total_pages: 0,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
      this.batch.events.push(this.event('series_created', series.id));
    } else if (series.deleted_at !== null) {
      series.deleted_at = null;
      this.batch.restoreSeries.push(series.id);
      this.batch.events.push(this.event('series_created', series.id));
    }
    this.touchedSeries.add(series.id);
    return series.id;
  }

  /** Writes the current batch in one transaction, then publishes its events. */
  private flush(): Promise<void> {
    const batch = this.batch;
    this.batch = this.emptyBatch();
    if (batch.size === 0 && batch.newSeries.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      let updates = batch.updates;
      const compared = updates.filter((u) => u.compare);
      if (compared.length > 0) {
        const current = await this.deps.repo.currentBookValues(compared.map((u) => u.id));
        updates = updates.filter((u) => {
          if (!u.compare) return true;
          const row = current.get(u.id);
          const changed = !row || Object.entries(u.changes).some(([k, v]) => k !== 'updated_at' && k !== 'analyzed_at' && row[k] !== v);
          if (!changed) this.booksUnchanged++;
          return changed;
        });
      }
      const dbBatch: CatalogBatch = {
        newSeries: batch.newSeries,
        restoreSeries: batch.restoreSeries,
        insertBooks: batch.insertBooks,
        updateBooks: updates.map((u) => ({ id: u.id, changes: u.changes })),
      };
      await this.deps.repo.applyBatch(dbBatch, nowIso());
      for (const u of updates) if (u.counter) this.counters[u.counter]++;
      for (const e of batch.events) this.deps.bus.publish(e.type, e);
      for (const u of updates) for (const e of u.events) this.deps.bus.publish(e.type, e);
    });
    return this.writing;
  }

  /** Recomputes name, aggregated metadata and counts of the series this scan touched; empty ones are soft-deleted. */
  private async refreshSeries(): Promise<void> {
    if (this.touchedSeries.size === 0) return;
    const ids = [...this.touchedSeries];
    const [rows, books] = await Promise.all([this.deps.repo.seriesRows(ids), this.deps.repo.presentBooksOfSeries(ids)]);
    const booksBySeries = new Map<string, typeof books>();
    for (const b of books) {
      const list = booksBySeries.get(b.series_id) ?? [];
      list.push(b);
      booksBySeries.set(b.series_id, list);
    }
    const now = nowIso();
    const updates: { id: string; changes: Record<string, unknown> }[] = [];
    const events: EntityEvent[] = [];
    for (const row of rows) {
      const present = booksBySeries.get(row.id) ?? [];
      const aggregate = aggregateSeries(row, present);
      const changes: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(aggregate)) if ((row as unknown as Record<string, unknown>)[k] !== v) changes[k] = v;
      if (present.length === 0 && row.deleted_at === null) {
        changes.deleted_at = now;
        events.push(this.event('series_deleted', row.id));
      } else if (Object.keys(changes).length > 0 && !this.createdSeries.has(row.id)) {
        events.push(this.event('series_updated', row.id));
      }
      if (Object.keys(changes).length > 0) updates.push({ id: row.id, changes: { ...changes, updated_at: now } });
    }
    await this.deps.repo.updateSeries(updates);
    for (const e of events) this.deps.bus.publish(e.type, e);
  }

  private event(type: EntityEventName, seriesId: string, bookId?: string): EntityEvent {
    return { type, ...(bookId ? { book_id: bookId } : {}), series_id: seriesId, library_id: this.libraryId, timestamp: nowIso() };
  }

  private emit(type: EntityEventName, seriesId: string, bookId?: string): void {
    const e = this.event(type, seriesId, bookId);
    this.deps.bus.publish(type, e);
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

function formatFromExtension(fileName: string): string | null {
  switch (path.extname(fileName).toLowerCase()) {
    case '.cbz':
    case '.zip':
      return 'cbz';
    case '.cbr':
    case '.rar':
      return 'cbr';
    case '.epub':
      return 'epub';
    case '.pdf':
      return 'pdf';
    default:
      return null;
  }
}
