import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { BookFile } from '../books/files.js';

interface StoredPage {
  start: number;
  length: number;
  mediaType: string;
}

interface KnownBook {
  file: BookFile;
  pages: Map<number, StoredPage>;
}

/** Books whose page places are remembered (a few hundred bytes each), least recently learnt forgotten first. */
const MAX_BOOKS = 4096;

/**
 * Where the pages of CBZ books lie in their files, learnt when a page is first read through the archive: a
 * page stored as it is (the usual CBZ) is then served like a plain file — open, fstat, one positioned read,
 * close, what `fs.readFile` does — with no archive opened, no central directory read and no path resolved
 * again, whichever of thousands of books a reader turns to.
 *
 * The file is the one resolved (through symlinks, checked to lie inside its library) when the place was
 * learnt. It is opened without following a symlink (a link put in its place fails and the book's path is
 * resolved and checked again), and its size and modification time must still be the ones learnt, else the book
 * is forgotten and read through the archive, which also reports a file gone or damaged with the usual errors.
 */
export class StoredPages {
  private readonly books = new Map<string, KnownBook>();

  remember(book: string, file: BookFile, n: number, page: StoredPage): void {
    let known = this.books.get(book);
    if (!known || known.file.absolutePath !== file.absolutePath || known.file.size !== file.size || known.file.mtimeMs !== file.mtimeMs) {
      known = { file, pages: new Map() };
      this.books.delete(book);
      this.books.set(book, known);
      if (this.books.size > MAX_BOOKS) this.books.delete(this.books.keys().next().value!);
    }
    known.pages.set(n, page);
  }

  /** Page `n`'s bytes and type when its place is known and the file is unchanged; undefined otherwise. */
  async read(book: string, n: number): Promise<{ data: Buffer; mediaType: string } | undefined> {
    const known = this.books.get(book);
    const page = known?.pages.get(n);
    if (!known || !page) return undefined;
    try {
      const handle = await open(known.file.absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const info = await handle.stat();
        if (info.isFile() && info.size === known.file.size && info.mtimeMs === known.file.mtimeMs) {
          const data = Buffer.allocUnsafe(page.length);
          const { bytesRead } = await handle.read(data, 0, page.length, page.start);
          if (bytesRead === page.length) return { data, mediaType: page.mediaType };
        }
      } finally {
        await handle.close();
      }
    } catch {
      // Gone, replaced by a link, unreadable: the archive path says why, with the usual errors.
    }
    if (this.books.get(book) === known) this.books.delete(book);
    return undefined;
  }
}
