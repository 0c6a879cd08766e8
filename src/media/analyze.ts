import { stat } from 'node:fs/promises';
import { errorMessage, asMediaError, throwIfAborted } from './errors.js';
import { hashFile } from './hash.js';
import type { MediaLimits } from './limits.js';
import { buildBookMetadata } from './metadata.js';
import { openBook } from './open-book.js';
import type { BookAnalysis, BookFormat, CoverRef, EmbeddedMetadata, PageData } from './types.js';
import { detectFormat } from './detect.js';

export interface AnalyzeOptions {
  /** The library folder, so a book at its root does not take the library's name as its series. */
  libraryRoot?: string;
  /** Skip detection when the format is already known. */
  format?: BookFormat;
  limits?: Partial<MediaLimits>;
  signal?: AbortSignal;
  /** Also return the cover image bytes (for thumbnail generation in the same pass). */
  withCover?: boolean;
  /** Skip hashing when the caller already has the hash of this exact file. */
  hash?: string;
}

/**
 * Everything the scanner stores about a book: format, size, SHA-256, pages with dimensions, merged metadata and
 * where the cover is. Runs in the calling thread; use the analysis pool to isolate hostile files.
 */
export async function analyzeFile(path: string, options: AnalyzeOptions = {}): Promise<BookAnalysis> {
  const { signal } = options;
  throwIfAborted(signal);
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw asMediaError(err, 'not_found', path);
  }
  const format = options.format ?? (await detectFormat(path));
  // Hashing is I/O-bound and parsing mostly CPU-bound: overlap them; a book that fails stops its hashing too.
  const stopHashing = new AbortController();
  const hashSignal = signal ? AbortSignal.any([signal, stopHashing.signal]) : stopHashing.signal;
  const hashing = options.hash ? Promise.resolve(options.hash) : hashFile(path, hashSignal);
  hashing.catch(() => undefined);
  const warnings: string[] = [];
  let reader;
  try {
    reader = await openBook(path, format, { limits: options.limits });
  } catch (err) {
    stopHashing.abort();
    throw err;
  }
  try {
    const pages = await reader.pages(signal);
    let embedded: EmbeddedMetadata | null = null;
    try {
      embedded = await reader.metadata();
    } catch (err) {
      warnings.push(`metadata ignored: ${errorMessage(err)}`);
    }
    let cover: CoverRef | null = null;
    let coverImage: PageData | undefined;
    try {
      if (options.withCover) {
        const { data, mediaType, ...ref } = await reader.cover({ width: 800, signal });
        cover = ref;
        coverImage = { data, mediaType };
      } else {
        cover = await reader.coverRef();
      }
    } catch (err) {
      warnings.push(`no cover: ${errorMessage(err)}`);
    }
    const metadata = buildBookMetadata({ path, libraryRoot: options.libraryRoot, format, embedded, pageCount: pages.length });
    return {
      format,
      size: info.size,
      mtimeMs: info.mtimeMs,
      hash: await hashing,
      pages,
      metadata,
      cover,
      ...(coverImage ? { coverImage } : {}),
      warnings,
    };
  } catch (err) {
    stopHashing.abort();
    throw err;
  } finally {
    await reader.close();
  }
}
