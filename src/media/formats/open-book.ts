import { openCbr } from './cbr.js';
import { openCbz } from './cbz.js';
import { detectFormat } from './detect.js';
import { openEpub } from './epub.js';
import { openPdf } from './pdf.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookFormat, BookReader } from '../types.js';

const OPENERS: Record<BookFormat, (path: string, options?: ReaderOptions) => Promise<BookReader>> = {
  cbz: openCbz,
  cbr: openCbr,
  epub: openEpub,
  pdf: openPdf,
};

/**
 * Opens a book for reading. Pass the format stored at analysis time to skip detection; pass `knownPages`
 * (the stored page file names) to skip listing. Always `close()` the reader.
 */
export async function openBook(path: string, format?: BookFormat, options: ReaderOptions = {}): Promise<BookReader> {
  return OPENERS[format ?? (await detectFormat(path))](path, options);
}

/** Runs `use` with an open reader and closes it afterwards, whatever happens. */
export async function withBook<T>(
  path: string,
  format: BookFormat | undefined,
  options: ReaderOptions,
  use: (reader: BookReader) => Promise<T>,
): Promise<T> {
  const reader = await openBook(path, format, options);
  try {
    return await use(reader);
  } finally {
    await reader.close();
  }
}
