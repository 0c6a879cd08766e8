import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { errorMessage, asMediaError, throwIfAborted } from '../errors.js';
import { hashFile, readAndHashFile } from './hash.js';
import { koreaderPartialMd5, koreaderPartialMd5File } from './koreader-md5.js';
import type { MediaLimits } from '../limits.js';
import { buildBookMetadata } from '../metadata/metadata.js';
import { openBook } from '../formats/open-book.js';
import type { BookAnalysis, BookFormat, BookReader, CoverRef, EmbeddedMetadata, PageData } from '../types.js';
import { detectFormat, detectFormatFromBytes } from '../formats/detect.js';

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
  /**
   * Size and modification time as the caller just saw them (the scanner's walk): no stat() of its own, unless the
   * file turns out to have changed since (its size differs), when its current values are taken.
   */
  stat?: FileStat;
}

export interface FileStat {
  size: number;
  mtimeMs: number;
}

/**
 * Books up to this size are read once, whole, into a buffer that is hashed on the way and then parsed from
 * memory: one pass over the file instead of a hashing pass plus a positioned read per page (each a trip to
 * the libuv thread pool), which on small books costs more than the hashing. Larger books are hashed in a
 * stream while the reader reads only the directory and page headers, so memory stays bounded.
 */
export const WHOLE_FILE_BYTES = 16 * 1024 * 1024;

/** Formats whose readers parse from a buffer already read (zip-based, PDF); CBR reads the file its own way. */
const IN_MEMORY_FORMATS: ReadonlySet<BookFormat> = new Set(['cbz', 'epub', 'pdf']);

/**
 * Everything the scanner stores about a book: format, size, SHA-256, pages with dimensions, merged metadata and
 * where the cover is. Runs in the calling thread; use the analysis pool to isolate hostile files.
 */
export async function analyzeFile(path: string, options: AnalyzeOptions = {}): Promise<BookAnalysis> {
  const { signal } = options;
  throwIfAborted(signal);
  let info = options.stat ?? (await statOf(path));
  if (!options.hash && info.size <= WHOLE_FILE_BYTES) {
    // One read of the whole book; the buffer goes back to the pool once the reader is closed.
    let whole;
    try {
      whole = await readAndHashFile(path, info.size, signal);
    } catch (err) {
      // Without a stat() of our own, a file that cannot even be stat()ed (gone, no permission) fails as it did.
      if (options.stat) await statOf(path);
      throw err;
    }
    if (whole) {
      try {
        // Shorter than the caller saw: the file changed meanwhile, and what was read is its new content.
        if (whole.data.length !== info.size) info = await statOf(path);
        const format = options.format ?? detectFormatFromBytes(whole.data.subarray(0, 1024), path);
        const data = IN_MEMORY_FORMATS.has(format) ? whole.data : undefined;
        const reader = await openBook(path, format, { limits: options.limits, data });
        const identity = { hash: Promise.resolve(whole.hash), koreaderMd5: koreaderPartialMd5(whole.data) };
        return await describe(path, info, format, reader, identity, options, () => undefined);
      } finally {
        whole.release();
      }
    }
  }
  // Past this point the caller's stat() is not trusted: the file grew since, or is too large to read whole.
  if (options.stat) info = await statOf(path);
  const format = options.format ?? (await detectFormat(path));
  // Hashing is I/O-bound and parsing mostly CPU-bound: overlap them; a book that fails stops its hashing too.
  const stopHashing = new AbortController();
  const hashSignal = signal ? AbortSignal.any([signal, stopHashing.signal]) : stopHashing.signal;
  const hashing = options.hash ? Promise.resolve(options.hash) : hashFile(path, hashSignal);
  hashing.catch(() => undefined);
  let reader;
  try {
    reader = await openBook(path, format, { limits: options.limits });
  } catch (err) {
    stopHashing.abort();
    throw err;
  }
  // ~12 KiB of positioned reads: cheap next to the whole-file hash it overlaps with.
  const koreaderMd5 = koreaderPartialMd5File(path);
  koreaderMd5.catch(() => undefined);
  return describe(path, info, format, reader, { hash: hashing, koreaderMd5 }, options, () => stopHashing.abort());
}

async function statOf(path: string): Promise<FileStat> {
  try {
    // Blocking in a worker thread (see readAndHashFile), asynchronous on the main thread.
    return isMainThread ? await stat(path) : statSync(path);
  } catch (err) {
    throw asMediaError(err, 'not_found', path);
  }
}

/** Pages, metadata and cover of an open book; closes the reader. */
async function describe(
  path: string,
  info: { size: number; mtimeMs: number },
  format: BookFormat,
  reader: BookReader,
  identity: { hash: Promise<string>; koreaderMd5: string | Promise<string> },
  options: AnalyzeOptions,
  stopHashing: () => void,
): Promise<BookAnalysis> {
  const { signal } = options;
  const warnings: string[] = [];
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
      hash: await identity.hash,
      koreaderMd5: await identity.koreaderMd5,
      pages,
      metadata,
      cover,
      ...(coverImage ? { coverImage } : {}),
      warnings,
    };
  } catch (err) {
    stopHashing();
    throw err;
  } finally {
    await reader.close();
  }
}
