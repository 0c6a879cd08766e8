import type { ScanMode } from '../../../events/types.js';
import type { TaskContext, TaskHandler } from '../../../tasks/worker.js';
import type { ScanRepository } from './repository.js';
import type { LibraryScanner, ScanResult } from './scanner.js';

function payloadOf(ctx: TaskContext): Record<string, unknown> {
  return ctx.payload && typeof ctx.payload === 'object' ? (ctx.payload as Record<string, unknown>) : {};
}

function progressOf(ctx: TaskContext, mode: ScanMode) {
  return (counters: Omit<ScanResult, 'library_id' | 'mode'>, message: string) =>
    ctx.progress({ current: counters.files_processed, total: counters.files_discovered, message, details: { mode, ...counters } });
}

/** The scanner's task types: scan_library, analyze_book, analyze_series. */
export function scannerTasks(scanner: LibraryScanner, repo: ScanRepository): Record<string, TaskHandler> {
  return {
    scan_library: async (ctx) => {
      const mode: ScanMode = payloadOf(ctx).mode === 'deep' ? 'deep' : 'normal';
      if (!ctx.task.library_id) throw new Error('scan_library task without library_id');
      const paths = payloadOf(ctx).paths;
      return scanner.scan({
        ...(Array.isArray(paths) ? { paths: paths.filter((p): p is string => typeof p === 'string') } : {}),
        libraryId: ctx.task.library_id,
        mode,
        taskId: ctx.task.id,
        signal: ctx.signal,
        onProgress: progressOf(ctx, mode),
      });
    },
    analyze_book: async (ctx) => {
      const bookId = String(payloadOf(ctx).book_id ?? ctx.task.target_id ?? '');
      const book = await repo.book(bookId);
      if (!book) throw new Error(`Book ${bookId} not found`);
      return scanner.analyzeBooks(book.library_id, [book.id], ctx.signal, progressOf(ctx, 'deep'));
    },
    analyze_series: async (ctx) => {
      const seriesId = String(payloadOf(ctx).series_id ?? ctx.task.target_id ?? '');
      const series = await repo.series(seriesId);
      if (!series) throw new Error(`Series ${seriesId} not found`);
      const ids = await repo.presentBookIdsOfSeries(series.id);
      return scanner.analyzeBooks(series.library_id, ids, ctx.signal, progressOf(ctx, 'deep'));
    },
  };
}
