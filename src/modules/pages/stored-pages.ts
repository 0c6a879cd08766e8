import { open } from 'node:fs/promises';
import type { BookFile } from '../books/files.js';

interface StoredPage {
  start: number;
  length: number;
  mediaType: string;
}

/** Books whose page places are remembered (a few hundred bytes each), least recently used forgotten first. */
const MAX_BOOKS = 4096;

/**
 * Where the pages of CBZ books lie in their files, learnt when a page is first read through the archive: a
 * page stored as it is (the usual CBZ) is then served like a plain file (open, one positioned read, close),
 * with no archive opened and no central directory read, whichever of thousands of books a reader turns to.
 * Keyed by path, size and modification time (as the reader pool is), so a changed file is read afresh; a
 * read that does not find the bytes where they were (a file replaced within the second its stat is
 * trusted) forgets the book and the page is read through the archive again.
 */
export class StoredPages {
  private readonly books = new Map<string, Map<number, StoredPage>>();

  private static key(file: BookFile): string {
    return `${file.absolutePath}\0${file.size}\0${file.mtimeMs}`;
  }

  remember(file: BookFile, n: number, page: StoredPage): void {
    const key = StoredPages.key(file);
    let pages = this.books.get(key);
    if (!pages) {
      pages = new Map();
      this.books.set(key, pages);
      if (this.books.size > MAX_BOOKS) this.books.delete(this.books.keys().next().value!);
    }
    pages.set(n, page);
  }

  /** Page `n`'s bytes and type when its place is known and the bytes are there; undefined otherwise. */
  async read(file: BookFile, n: number): Promise<{ data: Buffer; mediaType: string } | undefined> {
    const key = StoredPages.key(file);
    const page = this.books.get(key)?.get(n);
    if (!page) return undefined;
    try {
      const handle = await open(file.absolutePath, 'r');
      try {
        const data = Buffer.allocUnsafe(page.length);
        const { bytesRead } = await handle.read(data, 0, page.length, page.start);
        if (bytesRead === page.length) return { data, mediaType: page.mediaType };
      } finally {
        await handle.close();
      }
    } catch {
      // Gone or unreadable: the archive path below says why, with the usual errors.
    }
    this.books.delete(key);
    return undefined;
  }
}
