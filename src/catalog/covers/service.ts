import type { EventBus } from '../../events/bus.js';
import { isMediaError } from '../../media/errors.js';
import { withBook } from '../../media/formats/open-book.js';
import { getThumbnail, type ThumbnailFormat } from '../../media/rendering/thumbnails.js';
import type { BookFormat } from '../../media/types.js';
import type { TaskProgressUpdate, TaskQueue } from '../../tasks/queue.js';
import { resolveBookFile } from '../books/files.js';
import type { IsolatedRenderer } from '../../media/analysis/isolated-renderer.js';
import type { CoversRepository } from './repository.js';
import { parseJsonColumn } from '../../db/json-column.js';

export interface CoverDeps {
  repo: CoversRepository;
  queue: TaskQueue;
  bus: EventBus;
  cacheDir: string;
  /** Width the thumbnail endpoints serve, so the pre-made files are the ones requested. */
  width: () => number;
  /** PDF and CBR covers are made in its worker threads. */
  renderer: IsolatedRenderer;
}

// Browsers get WebP, e-readers JPEG: make both so the first feed page of a fresh library is already fast.
const FORMATS: ThumbnailFormat[] = ['webp', 'jpeg'];

export interface CoverResult {
  books: number;
  generated: number;
  /** Covers that could not be made, for any reason. */
  failed: number;
  /**
   * Of those, the ones the server failed (disk full, descriptors exhausted, a cache it could not write), not the
   * book: the library's next scan queues the task again to make them, changed books or not.
   */
  deferred: number;
}

/** A failure of the server rather than of the book: worth another try later. */
function isServerFailure(err: unknown): boolean {
  return !isMediaError(err) || err.kind === 'unavailable' || err.kind === 'timeout' || err.kind === 'worker_crashed';
}

/**
 * Thumbnails made ahead of time: after a scan adds or changes books, a `generate_thumbnails` task makes the
 * covers that are not cached yet, so readers never wait for them. Covers are keyed by content hash, so an
 * unchanged book costs one cache lookup.
 */
export class CoverService {
  constructor(private readonly deps: CoverDeps) {}

  /**
   * Queues the task for a library (one pending or running per library). Made covers are cached, so a run
   * interrupted by a stopped process is simply run again (up to three attempts) and skips what is done.
   */
  async request(libraryId: string): Promise<void> {
    await this.deps.queue.enqueue({
      type: 'generate_thumbnails',
      libraryId,
      activeKey: `generate_thumbnails:${libraryId}`,
      priority: -1,
      maxAttempts: 3,
    });
  }

  /**
   * After a scan: covers for the books it added or changed, and the covers a previous run left unmade because of
   * the server (disk full, interrupted for good): without this they were never made, as an unchanged library
   * never queues the task again.
   */
  async afterScan(libraryId: string, booksChanged: boolean): Promise<void> {
    if (booksChanged || (await this.lastRunIncomplete(libraryId))) await this.request(libraryId);
  }

  private async lastRunIncomplete(libraryId: string): Promise<boolean> {
    const last = await this.deps.queue.latestForLibrary('generate_thumbnails', libraryId);
    if (!last || last.status === 'pending' || last.status === 'running') return false;
    if (last.status !== 'completed') return true;
    const result = parseResult(last.result);
    return (result.deferred ?? 0) > 0;
  }

  async generate(
    scope: { libraryId?: string; seriesId?: string },
    signal: AbortSignal,
    progress: (update: TaskProgressUpdate) => void,
  ): Promise<CoverResult> {
    const books = await this.deps.repo.sources(scope);
    let generated = 0;
    let failed = 0;
    let deferred = 0;
    const width = this.deps.width();
    for (const [i, book] of books.entries()) {
      signal.throwIfAborted();
      try {
        const file = await resolveBookFile(book);
        const { renderer } = this.deps;
        const format = book.format;
        // Both formats are made from one read of the cover (the same size): the book is opened, and a PDF page
        // drawn, once instead of twice.
        let cover: Promise<Buffer> | undefined;
        const readCover = (size: { width: number; height?: number }) =>
          (cover ??= renderer.handles(format)
            ? renderer.cover(file.absolutePath, format, size)
            : withBook(
                file.absolutePath,
                (format ?? undefined) as BookFormat | undefined,
                {},
                async (reader) => (await reader.cover(size)).data,
              ));
        let made = false;
        for (const imageFormat of FORMATS) {
          const thumb = await getThumbnail({
            cacheDir: this.deps.cacheDir,
            hash: book.hash,
            path: file.absolutePath,
            format: (format ?? undefined) as BookFormat | undefined,
            width,
            imageFormat,
            readCover,
          });
          // Made but not kept (a full disk): not a pregenerated cover.
          if (thumb.data) throw new Error('the cover could not be written to the cache');
          made ||= thumb.generated;
        }
        if (made) {
          generated += 1;
          this.deps.bus.publish('cover_updated', {
            type: 'cover_updated',
            book_id: book.id,
            series_id: book.series_id,
            library_id: book.library_id,
            timestamp: new Date().toISOString(),
          });
        }
      } catch (err) {
        // An unreadable cover is the reader's 404 later; it must not stop the others.
        failed += 1;
        if (isServerFailure(err)) deferred += 1;
      }
      if (i % 10 === 9 || i === books.length - 1)
        progress({ current: i + 1, total: books.length, message: `Covers: ${i + 1} of ${books.length}` });
    }
    return { books: books.length, generated, failed, deferred };
  }
}

function parseResult(text: string | null): { deferred?: number } {
  return parseJsonColumn<{ deferred?: number }>(text, {}, (value) =>
    value && typeof value === 'object' ? (value as { deferred?: number }) : undefined,
  );
}
