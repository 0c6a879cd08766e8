import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, notFound } from '../../http/errors.js';
import type { BookWithLibrary } from './repository.js';

export interface BookFile {
  absolutePath: string;
  size: number;
  mtimeMs: number;
}

/**
 * The book's file on disk, resolved through symlinks and checked to lie inside its library root (a link
 * pointing outside the library is refused). A file gone since the last scan is a 404.
 */
export async function resolveBookFile(book: Pick<BookWithLibrary, 'library_path' | 'path'>): Promise<BookFile> {
  const root = await realpath(book.library_path).catch(() => null);
  if (!root) throw notFound('Book file', { reason: 'library folder is missing' });
  const real = await realpath(path.join(book.library_path, book.path)).catch(() => null);
  if (!real) throw notFound('Book file', { reason: 'file is missing; rescan the library' });
  const relative = path.relative(root, real);
  // `..` or `../…` only: a file named `..x.cbz` at the top of the library is inside it (the walk's rule too).
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
    throw new AppError(403, 'Forbidden', 'The book file lies outside its library');
  const info = await stat(real);
  return { absolutePath: real, size: info.size, mtimeMs: info.mtimeMs };
}
