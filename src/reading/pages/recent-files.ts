import { type BookFile, type BookWithLibrary, resolveBookFile } from '../../catalog/index.js';
/** How long a resolved book file is trusted before its path is resolved and checked again. */
const FRESH_MS = 1000;
const MAX_FILES = 256;

/**
 * Book files resolved for page reads in the last second. Resolving costs two realpath calls and a stat
 * (the library-root check and the reader pool's size/mtime key), the same for every page a reader turns; a
 * file changed, moved or removed is noticed within a second. Downloads and covers resolve every time.
 */
export class RecentBookFiles {
  private readonly files = new Map<string, { file: Promise<BookFile>; at: number }>();

  resolve(book: Pick<BookWithLibrary, 'library_path' | 'path'>): Promise<BookFile> {
    const key = `${book.library_path}\0${book.path}`;
    const now = Date.now();
    const known = this.files.get(key);
    if (known && now - known.at < FRESH_MS) return known.file;
    const file = resolveBookFile(book);
    this.files.delete(key);
    this.files.set(key, { file, at: now });
    file.catch(() => this.files.delete(key));
    if (this.files.size > MAX_FILES) this.files.delete(this.files.keys().next().value!);
    return file;
  }
}
