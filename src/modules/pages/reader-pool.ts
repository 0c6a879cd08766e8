import { openBook } from '../../media/open-book.js';
import type { BookFormat, BookReader } from '../../media/types.js';

interface Entry {
  reader: Promise<BookReader>;
  users: number;
  lastUsed: number;
}

/**
 * Keeps a few zip-based books (CBZ, EPUB) open between page requests: a reader turning pages would otherwise
 * re-open the file and re-read its central directory for every page. Keyed by path, size and mtime, so a
 * changed file is opened afresh; idle readers close after `idleMs`. Other formats open per request.
 */
export class ReaderPool {
  private readonly entries = new Map<string, Entry>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly maxOpen = 16,
    private readonly idleMs = 30_000,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), Math.max(1000, idleMs / 2));
    this.sweep.unref();
  }

  async use<T>(file: { absolutePath: string; size: number; mtimeMs: number }, format: BookFormat | undefined, knownPages: readonly string[], fn: (reader: BookReader) => Promise<T>): Promise<T> {
    if (format !== 'cbz' && format !== 'epub') {
      const reader = await openBook(file.absolutePath, format, { knownPages });
      try {
        return await fn(reader);
      } finally {
        await reader.close();
      }
    }
    const key = `${file.absolutePath}\0${file.size}\0${file.mtimeMs}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const reader = openBook(file.absolutePath, format, { knownPages });
      entry = { reader, users: 0, lastUsed: Date.now() };
      this.entries.set(key, entry);
      reader.catch(() => this.entries.delete(key));
      this.evict();
    }
    entry.users += 1;
    try {
      return await fn(await entry.reader);
    } finally {
      entry.users -= 1;
      entry.lastUsed = Date.now();
    }
  }

  private evict(): void {
    if (this.entries.size <= this.maxOpen) return;
    const idle = [...this.entries.entries()].filter(([, e]) => e.users === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key, entry] of idle.slice(0, this.entries.size - this.maxOpen)) this.closeEntry(key, entry);
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.users === 0 && now - entry.lastUsed > this.idleMs) this.closeEntry(key, entry);
  }

  private closeEntry(key: string, entry: Entry): void {
    this.entries.delete(key);
    entry.reader.then((r) => r.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    for (const [key, entry] of [...this.entries]) this.closeEntry(key, entry);
  }
}
