import path from 'node:path';
import type { Updateable } from 'kysely';
import { newId, nowIso } from '../../../db/ids.js';
import type { BooksTable } from '../../../db/tables/catalog.js';
import type { EntityEvent, ScanCounters, ScanMode } from '../../../events/types.js';
import { catalogColumns, type CatalogAnalysis } from '../../../media/analysis/catalog-analysis.js';
import { koreaderNameMd5 } from '../../../media/analysis/koreader-md5.js';
import type { Outcome } from './analysis-trip.js';
import { titleFromFileName } from './analyzer.js';
import { emptyBatch, type StagedBatch } from './batch-writer.js';
import type { BookInsert } from './repository.js';
import type { CatalogIndex } from './scan-plan.js';
import { entityEvent } from './scan-events.js';
import type { SeriesRefresh } from './series-refresh.js';
import { initialSeriesName, seriesKeyOf, sortNameOf } from './series-rules.js';
import type { WorkItem } from './work-queue.js';
import type { DecisionDetail, DecisionOutcome, DecisionReason } from './decisions.js';

/**
 * Turns analysis results into the rows and events of the next batch: a new book (or a book moved, recognised
 * by its hash), a changed or restored one, and the series each belongs to, created on first sight. Keeps the
 * catalog index up to date as it goes, synchronously, so that it stays consistent between concurrent loops.
 */
export class AnalysisStaging {
  private batch = emptyBatch();

  constructor(
    private readonly libraryId: string,
    private readonly mode: ScanMode,
    private readonly index: CatalogIndex,
    private readonly series: SeriesRefresh,
    private readonly counters: ScanCounters,
    private readonly targeted = false,
  ) {}

  private decide(
    relPath: string,
    bookId: string | null,
    outcome: DecisionOutcome,
    reason: DecisionReason,
    extra: Omit<DecisionDetail, 'reason' | 'mode' | 'targeted'> = {},
  ): void {
    this.batch.decisions.push({
      library_id: this.libraryId,
      path: relPath,
      book_id: bookId,
      outcome,
      detail: { reason, mode: this.mode, targeted: this.targeted, ...extra },
    });
  }

  /** Files staged since the last `take()`. */
  get size(): number {
    return this.batch.size;
  }

  /** The staged batch, handed over for writing; staging starts a new one. */
  take(): StagedBatch {
    const batch = this.batch;
    this.batch = emptyBatch();
    return batch;
  }

  /** Stages one work item with its outcome (null: restore without analysis); `allowMoves` on scans of the whole folder. */
  stage(item: WorkItem, outcome: Outcome | null, allowMoves: boolean): void {
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
        if (reanalyse) changes = { ...base, ...analysisColumns(outcome, fileName, now) };
        if (contentChanged && existing.hash !== null && outcome.ok) events.push(this.event('cover_updated', seriesId, existing.id));
      }
      {
        const hash = outcome ? (outcome.ok ? outcome.analysis.hash : outcome.hash) : existing.hash;
        const reason: DecisionReason = wasDeleted
          ? 'file_back'
          : this.mode === 'deep'
            ? 'deep_scan'
            : existing.size !== file.size
              ? 'size_changed'
              : existing.mtime_ms !== file.mtimeMs
                ? 'mtime_changed'
                : 'retry_after_error';
        this.decide(file.relPath, existing.id, outcome && !outcome.ok ? 'failed' : wasDeleted ? 'restored' : 'updated', reason, {
          size: file.size,
          mtime_ms: file.mtimeMs,
          hash,
          previous: { size: existing.size, mtime_ms: existing.mtime_ms, hash: existing.hash },
          content_changed: hash !== existing.hash,
          ...(outcome && !outcome.ok ? { error: outcome.error } : {}),
        });
      }
      if (existing.series_id !== seriesId) this.series.touch(existing.series_id);
      this.series.touch(seriesId);
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
    const moved = allowMoves && hash ? this.index.takeMoveCandidate(hash) : undefined;
    if (moved) {
      this.decide(file.relPath, moved.id, 'moved', 'same_hash', { size: file.size, mtime_ms: file.mtimeMs, hash, moved_from: moved.path });
      this.decide(moved.path, moved.id, 'moved_away', 'same_hash', { hash, moved_to: file.relPath });
      this.index.byPath.delete(moved.path);
      const wasDeleted = moved.deleted_at !== null;
      this.series.touch(moved.series_id);
      this.series.touch(seriesId);
      moved.path = file.relPath;
      moved.deleted_at = null;
      moved.series_id = seriesId;
      this.index.byPath.set(file.relPath, moved);
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
    this.series.touch(seriesId);
    this.batch.insertBooks.push({
      id,
      library_id: this.libraryId,
      series_id: seriesId,
      path: file.relPath,
      file_name: fileName,
      koreader_name_md5: koreaderNameMd5(fileName),
      size: file.size,
      mtime_ms: file.mtimeMs,
      ...analysisColumns(outcome ?? { ok: false, hash: null, koreaderMd5: null, error: 'not analysed' }, fileName, now),
      created_at: now,
      updated_at: now,
      deleted_at: null,
    } as BookInsert);
    this.index.byPath.set(file.relPath, {
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
    this.decide(file.relPath, id, outcome && outcome.ok ? 'added' : 'failed', 'new_file', {
      size: file.size,
      mtime_ms: file.mtimeMs,
      hash,
      ...(outcome && !outcome.ok ? { error: outcome.error } : {}),
    });
  }

  /** The series of a file's folder: created (or restored) on first sight in this scan. */
  private ensureSeries(relPath: string, metadata: CatalogAnalysis['fields'] | null): string {
    const key = seriesKeyOf(relPath);
    const now = nowIso();
    let series = this.index.seriesByKey.get(key);
    if (!series) {
      const name = initialSeriesName(key, relPath, metadata);
      series = { id: newId(), path: key, name, deleted_at: null };
      this.index.seriesByKey.set(key, series);
      this.series.markCreated(series.id);
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
    this.series.touch(series.id);
    return series.id;
  }

  private event(type: EntityEvent['type'], seriesId: string, bookId?: string): EntityEvent {
    return entityEvent(this.libraryId, type, seriesId, bookId);
  }
}

/** Columns a (re-)analysis sets. A failed analysis keeps a usable title and records the error. */
function analysisColumns(outcome: Outcome, fileName: string, now: string) {
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
      release_date: null,
      links: '[]',
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
    release_date: a.releaseDate,
    links: a.linksJson,
    metadata: a.metadataJson,
    cover_page: a.coverPage,
  };
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
