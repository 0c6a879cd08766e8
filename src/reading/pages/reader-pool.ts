import { isMediaError, MediaError } from '../../media/errors.js';
import { openBook } from '../../media/formats/open-book.js';
import type { BookFormat, BookReader } from '../../media/types.js';

interface Entry {
  key: string;
  reader: Promise<BookReader>;
  users: number;
  lastUsed: number;
  /** Out of the map (evicted, failed, or its reader went bad): closed when its last user leaves. */
  retired: boolean;
}

export interface ReaderPoolOptions {
  /** Books kept open while nobody reads them (least recently used close first). */
  maxOpen?: number;
  /**
   * Books open at once, in use or not. Above `maxOpen` a book opens for its request and closes when the last
   * reader of it leaves; at this many, a request for another book waits for one to be released.
   */
  maxInUse?: number;
  idleMs?: number;
}

export const DEFAULT_OPEN_BOOKS = 16;

/**
 * Keeps a few zip-based books (CBZ, EPUB) open between page requests: a reader turning pages would otherwise
 * re-open the file and re-read its central directory for every page. Keyed by path, size and mtime, so a
 * changed file is opened afresh; idle readers close after `idleMs`. Other formats open per request.
 *
 * A reader is never closed while a request uses it: users are counted before anything is evicted, and only
 * idle readers are evicted. When more books are read at once than the pool keeps, the extra ones stay open
 * until their last request ends (up to `maxInUse`; beyond that requests wait for a release) — closing a
 * reader under a request made healthy books answer "cannot be read" under load.
 */
export class ReaderPool {
  private readonly entries = new Map<string, Entry>();
  /** Entries holding an open (or opening) file: the map's plus retired ones still in use. */
  private open = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly sweep: NodeJS.Timeout;
  private readonly maxOpen: number;
  private readonly maxInUse: number;
  private readonly idleMs: number;
  /** Set by close(): requests still waiting for room (and any later one) open no book. */
  private closed = false;

  constructor(options: ReaderPoolOptions = {}) {
    this.maxOpen = Math.max(1, options.maxOpen ?? DEFAULT_OPEN_BOOKS);
    this.maxInUse = Math.max(this.maxOpen, options.maxInUse ?? this.maxOpen * 4);
    this.idleMs = options.idleMs ?? 30_000;
    this.sweep = setInterval(() => this.closeIdle(), Math.max(1000, this.idleMs / 2));
    this.sweep.unref();
  }

  /** Books open right now (for tests and metrics). */
  get openBooks(): number {
    return this.open;
  }

  async use<T>(
    file: { absolutePath: string; size: number; mtimeMs: number },
    format: BookFormat | undefined,
    knownPages: readonly string[],
    fn: (reader: BookReader) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new MediaError('unavailable', 'the server is shutting down');
    if (format !== 'cbz' && format !== 'epub') {
      const reader = await openBook(file.absolutePath, format, { knownPages });
      try {
        return await fn(reader);
      } finally {
        await reader.close();
      }
    }
    const entry = await this.acquire(`${file.absolutePath}\0${file.size}\0${file.mtimeMs}`, file.absolutePath, format, knownPages);
    try {
      return await fn(await entry.reader);
    } catch (err) {
      // A read that failed for the server's sake (a closed or exhausted descriptor) may have left the reader
      // unusable: the next request opens the book afresh.
      if (isMediaError(err) && err.kind === 'unavailable') this.retire(entry);
      throw err;
    } finally {
      this.release(entry);
    }
  }

  /** The entry for `key` with this caller counted as a user, opening the book when needed (waiting for room). */
  private async acquire(key: string, path: string, format: BookFormat, knownPages: readonly string[]): Promise<Entry> {
    for (;;) {
      if (this.closed) throw new MediaError('unavailable', 'the server is shutting down');
      const known = this.entries.get(key);
      if (known) {
        known.users += 1;
        return known;
      }
      if (this.open >= this.maxInUse) this.evictIdle(this.open - this.maxInUse + 1);
      if (this.open < this.maxInUse) break;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const entry: Entry = { key, reader: openBook(path, format, { knownPages }), users: 1, lastUsed: Date.now(), retired: false };
    this.entries.set(key, entry);
    this.open += 1;
    entry.reader.catch(() => this.retire(entry));
    this.evictIdle(this.entries.size - this.maxOpen);
    return entry;
  }

  private release(entry: Entry): void {
    entry.users -= 1;
    entry.lastUsed = Date.now();
    // Refresh its place in the map's order, which is least recently used first.
    if (!entry.retired && this.entries.get(entry.key) === entry) {
      this.entries.delete(entry.key);
      this.entries.set(entry.key, entry);
    }
    if (entry.users === 0 && entry.retired) this.closeReader(entry);
    else this.evictIdle(this.entries.size - this.maxOpen);
    this.wake();
  }

  /** Closes up to `count` idle readers, least recently used first. */
  private evictIdle(count: number): void {
    if (count <= 0) return;
    for (const entry of [...this.entries.values()]) {
      if (count <= 0) break;
      if (entry.users > 0) continue;
      this.retire(entry);
      count -= 1;
    }
  }

  /** Takes the entry out of the pool; its reader closes now if idle, else when its last user leaves. */
  private retire(entry: Entry): void {
    if (entry.retired) return;
    entry.retired = true;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    if (entry.users === 0) this.closeReader(entry);
  }

  private closeReader(entry: Entry): void {
    if (entry.users !== 0) return;
    entry.users = -1; // closed: never counted twice
    this.open -= 1;
    entry.reader.then((r) => r.close()).catch(() => undefined);
    this.wake();
  }

  private wake(): void {
    while (this.waiting.length > 0 && this.open < this.maxInUse) this.waiting.shift()!();
    // Everyone waiting re-checks; with no room, the ones left wait for the next release.
    if (this.waiting.length > 0 && [...this.entries.values()].some((e) => e.users === 0)) this.waiting.shift()!();
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const entry of [...this.entries.values()]) if (entry.users === 0 && now - entry.lastUsed > this.idleMs) this.retire(entry);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    for (const entry of [...this.entries.values()]) this.retire(entry);
    for (const wake of this.waiting.splice(0)) wake();
  }
}
