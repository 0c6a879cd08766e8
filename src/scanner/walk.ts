import { readdir, readdirSync, stat, statSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { isBookFileName } from '../media/detect.js';

export interface FoundFile {
  /** Relative to the library root, POSIX separators. */
  relPath: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** stat() calls in flight. */
  concurrency?: number;
  /** Called for a directory that cannot be read (permissions): the walk goes on without it. */
  onError?: (relPath: string, err: unknown) => void;
}

interface Listing {
  found: Promise<FoundFile[]>;
  subdirs: Promise<Listing>[];
}

/**
 * Bounds the readdir() and stat() calls in flight across the whole tree. Callback-based on purpose: a rescan
 * is little more than one stat() per file, and a promise (or two, with an async wrapper) per call cost more
 * main-thread time and garbage than the call itself; the promise API of fs is slower per call too.
 */
class IoQueue {
  private running = 0;
  /** A FIFO as an array and a read position (shift() on tens of thousands of entries moves them all). */
  private waiting: ({ operation: (done: () => void) => void; skipped: () => void } | undefined)[] = [];
  private head = 0;

  constructor(
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Runs `operation` when a slot is free; it must call `done` exactly once. An aborted walk starts nothing new. */
  run(operation: (done: () => void) => void, skipped: () => void): void {
    if (this.signal?.aborted) {
      skipped();
    } else if (this.running < this.limit) {
      this.running++;
      operation(() => this.release());
    } else {
      this.waiting.push({ operation, skipped });
    }
  }

  private release(): void {
    // A finishing operation hands its slot straight to the next waiting one.
    for (;;) {
      const next = this.waiting[this.head];
      if (!next) {
        this.waiting = [];
        this.head = 0;
        this.running--;
        return;
      }
      this.waiting[this.head++] = undefined;
      if (this.signal?.aborted) {
        next.skipped();
        continue;
      }
      next.operation(() => this.release());
      return;
    }
  }
}

/** stat() of a folder's book files, in name order, as one promise. */
function statFiles(io: IoQueue, root: string, files: readonly string[]): Promise<FoundFile[]> {
  if (files.length === 0) return Promise.resolve([]);
  return new Promise((resolve) => {
    const found: (FoundFile | null)[] = new Array<FoundFile | null>(files.length).fill(null);
    let left = files.length;
    const finish = () => {
      if (--left === 0) resolve(found.filter((file): file is FoundFile => file !== null));
    };
    files.forEach((rel, i) => {
      io.run(
        (done) =>
          stat(path.join(root, rel), (err, s) => {
            if (!err && s.isFile()) found[i] = { relPath: rel, size: s.size, mtimeMs: Math.floor(s.mtimeMs) };
            done();
            finish();
          }),
        finish,
      );
    });
  });
}

/** A folder's entries split into book files and subfolders to visit, each in name order. */
function sortEntries(dir: string, entries: readonly Dirent[]): { files: string[]; subdirs: string[] } {
  const files: string[] = [];
  const subdirs: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === '__MACOSX') continue;
    const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) subdirs.push(rel);
    else if ((entry.isFile() || entry.isSymbolicLink()) && isBookFileName(entry.name)) files.push(rel);
  }
  files.sort();
  subdirs.sort();
  return { files, subdirs };
}

/**
 * `walkLibrary` in blocking calls, for a thread that has nothing else to do (see walk-thread.ts): the same files,
 * the same rules, the same order. `found` gets each folder's books; a folder other than the root that cannot be
 * read goes to `onError`, an unreadable root throws.
 */
export function walkLibrarySync(root: string, found: (files: FoundFile[]) => void, onError?: (relPath: string, err: unknown) => void): void {
  const pending = [''];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch (err) {
      if (dir === '') throw err;
      onError?.(dir, err);
      continue;
    }
    const { files, subdirs } = sortEntries(dir, entries);
    const books: FoundFile[] = [];
    for (const rel of files) {
      let s;
      try {
        s = statSync(path.join(root, rel));
      } catch {
        continue; // gone or unreadable since the listing: skipped, as by the asynchronous walk
      }
      if (s.isFile()) books.push({ relPath: rel, size: s.size, mtimeMs: Math.floor(s.mtimeMs) });
    }
    if (books.length > 0) found(books);
    for (let i = subdirs.length - 1; i >= 0; i--) pending.push(subdirs[i]!);
  }
}

/**
 * Streams every book file under `root` (by extension), depth-first in name order, one batch per folder.
 * Hidden entries (dot files and folders, `__MACOSX`) are skipped; symbolic links to files are followed,
 * links to folders are not (no cycles, no escaping the library root).
 *
 * `readdir()` and `stat()` calls of the whole tree share one bound (`concurrency`), so the thread pool stays
 * busy across folder boundaries: a library of many small series folders is otherwise walked one folder (and
 * one round of a handful of stat calls) at a time, and an unchanged rescan is little more than this walk.
 * Results still come out in the same order as a sequential walk.
 */
export async function* walkLibrary(root: string, options: WalkOptions = {}): AsyncGenerator<FoundFile[]> {
  const { signal } = options;
  const io = new IoQueue(options.concurrency ?? 32, signal);
  const visit = (dir: string): Promise<Listing> =>
    new Promise<Dirent[] | null>((resolve, reject) => {
      io.run(
        (done) =>
          readdir(path.join(root, dir), { withFileTypes: true }, (err, entries) => {
            done();
            if (err) reject(err);
            else resolve(entries);
          }),
        () => resolve(null),
      );
    }).then(
      (entries) => {
        const { files, subdirs } = sortEntries(dir, entries ?? []);
        return { found: statFiles(io, root, files), subdirs: subdirs.map(visit) };
      },
      (err: unknown) => {
        if (dir === '') throw err;
        options.onError?.(dir, err);
        return { found: Promise.resolve([]), subdirs: [] };
      },
    );
  // Folders are listed ahead of the consumer; take them in depth-first name order.
  const pending: Promise<Listing>[] = [visit('')];
  try {
    while (pending.length > 0) {
      signal?.throwIfAborted();
      const listing = await pending.pop()!;
      const found = await listing.found;
      signal?.throwIfAborted();
      pending.push(...listing.subdirs.reverse());
      if (found.length > 0) yield found;
    }
  } finally {
    // Listings still in flight when the walk stops early must not surface as unhandled rejections.
    for (const listing of pending) listing.catch(() => undefined);
  }
}
