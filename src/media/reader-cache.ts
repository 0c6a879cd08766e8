import { openBook } from './open-book.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookFormat, BookReader } from './types.js';

export interface ReaderCacheOptions {
  /** Open books kept at most (each holds a file descriptor; a CBR holds its bytes in memory). */
  maxOpen?: number;
  /** Close a book nobody used for this long. */
  idleMs?: number;
}

interface Slot {
  reader: Promise<BookReader>;
  users: number;
  lastUsed: number;
}

/**
 * Keeps recently read books open, so a reader paging through a book pays for the central directory (or the
 * RAR listing, or the PDF parse) once instead of once per page. Keyed by path and a version the caller knows
 * changes when the file does (its content hash), so a replaced file is never read through a stale handle.
 */
export class BookReaderCache {
  private readonly slots = new Map<string, Slot>();
  private readonly maxOpen: number;
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: ReaderCacheOptions = {}) {
    this.maxOpen = Math.max(1, options.maxOpen ?? 32);
    this.idleMs = options.idleMs ?? 60_000;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, Math.floor(this.idleMs / 2)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.slots.size;
  }

  async use<T>(
    book: { path: string; format?: BookFormat; version?: string },
    options: ReaderOptions,
    work: (reader: BookReader) => Promise<T>,
  ): Promise<T> {
    const key = `${book.version ?? ''}\0${book.format ?? ''}\0${book.path}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { reader: openBook(book.path, book.format, options), users: 0, lastUsed: Date.now() };
      this.slots.set(key, slot);
      // A book that fails to open is not kept: the next call tries again.
      slot.reader.catch(() => this.slots.delete(key));
    }
    // Map order is insertion order: re-inserting makes this the most recently used book.
    this.slots.delete(key);
    this.slots.set(key, slot);
    slot.users++;
    try {
      return await work(await slot.reader);
    } finally {
      slot.users--;
      slot.lastUsed = Date.now();
      await this.evict();
    }
  }

  private async closeSlot(key: string, slot: Slot): Promise<void> {
    this.slots.delete(key);
    await slot.reader.then((reader) => reader.close()).catch(() => undefined);
  }

  private async evict(): Promise<void> {
    for (const [key, slot] of this.slots) {
      if (this.slots.size <= this.maxOpen) break;
      if (slot.users === 0) await this.closeSlot(key, slot);
    }
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, slot] of [...this.slots]) {
      if (slot.users === 0 && now - slot.lastUsed > this.idleMs) await this.closeSlot(key, slot);
    }
  }

  /** Closes every book not in use and stops the idle sweep. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.slots].filter(([, slot]) => slot.users === 0).map(([key, slot]) => this.closeSlot(key, slot)));
  }
}
