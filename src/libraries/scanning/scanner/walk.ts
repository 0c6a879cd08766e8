import { type Dirent, readdir, readdirSync, realpath, realpathSync, stat, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { isBookFileName } from '../../../media/formats/detect.js';

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
  /**
   * Called for a directory that cannot be read (permissions), and for a book file whose name is not valid UTF-8
   * (`code: 'EILSEQ'`): the walk goes on without it.
   */
  onError?: (relPath: string, err: unknown) => void;
}

/**
 * A name that is not valid UTF-8 (a Latin-1 name copied from an old disk) reaches us with U+FFFD in place of its
 * bytes, and that path does not exist: without a word the file would be missing from the library for good.
 */
function unreadableName(rel: string, err: unknown): Error | null {
  if (!rel.includes('\uFFFD') || (err as { code?: unknown } | null)?.code !== 'ENOENT') return null;
  return Object.assign(new Error(`${rel}: the file name is not valid UTF-8; rename the file so the scan can read it`), {
    code: 'EILSEQ',
  });
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

/** Whether `real` (a resolved path) lies inside `realRoot` (the library root, resolved): the rule serving applies. */
function insideRoot(realRoot: string, real: string): boolean {
  const relative = path.relative(realRoot, real);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/**
 * The root's real path, resolved at most once per walk and only when the walk meets a symbolic link (an ordinary
 * rescan meets none). Null when it cannot be resolved: then no link is followed.
 */
function realRootOnce(root: string): () => Promise<string | null> {
  let resolved: Promise<string | null> | undefined;
  return () =>
    (resolved ??= new Promise((resolve) => {
      realpath.native(root, (err, real) => resolve(err ? null : real));
    }));
}

/**
 * stat() of the file a symbolic link leads to, when that file's real path lies inside the library's real root
 * (as serving requires); an error otherwise, as for a dangling link. A realpath(), then a stat() of the target.
 */
function statLink(link: string, realRoot: () => Promise<string | null>, callback: (err: Error | null, s?: Stats) => void): void {
  realpath.native(link, (err, real) => {
    if (err) {
      callback(err);
      return;
    }
    void realRoot().then((base) => {
      if (base !== null && insideRoot(base, real)) stat(real, callback);
      else callback(new Error(`${link} leads out of the library`));
    });
  });
}

/**
 * stat() of a folder's book files, in name order, as one promise. A symbolic link (in `links`) is followed only
 * when its target's real path lies inside the library's real root, as serving requires; otherwise it is skipped,
 * as a dangling link is.
 */
function statFiles(
  io: IoQueue,
  root: string,
  files: readonly string[],
  links: ReadonlySet<string> | null,
  realRoot: () => Promise<string | null>,
  onError: WalkOptions['onError'],
): Promise<FoundFile[]> {
  if (files.length === 0) return Promise.resolve([]);
  return new Promise((resolve) => {
    const found: (FoundFile | null)[] = new Array<FoundFile | null>(files.length).fill(null);
    let left = files.length;
    const finish = () => {
      if (--left === 0) resolve(found.filter((file): file is FoundFile => file !== null));
    };
    const settle = (i: number, err: Error | null, s: Stats | undefined, done: () => void) => {
      if (!err && s?.isFile()) found[i] = { relPath: files[i]!, size: s.size, mtimeMs: Math.floor(s.mtimeMs) };
      const misnamed = err && unreadableName(files[i]!, err);
      if (misnamed) onError?.(files[i]!, misnamed);
      done();
      finish();
    };
    files.forEach((rel, i) => {
      io.run(
        links?.has(rel)
          ? (done) => statLink(path.join(root, rel), realRoot, (err, s) => settle(i, err, s, done))
          : (done) => stat(path.join(root, rel), (err, s) => settle(i, err, s, done)),
        finish,
      );
    });
  });
}

/**
 * A folder's entries split into book files and subfolders to visit, each in name order, and which of the files
 * are symbolic links (null when none is, as usual).
 */
function sortEntries(dir: string, entries: readonly Dirent[]): { files: string[]; subdirs: string[]; links: Set<string> | null } {
  const files: string[] = [];
  const subdirs: string[] = [];
  let links: Set<string> | null = null;
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === '__MACOSX') continue;
    const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) subdirs.push(rel);
    else if (entry.isFile() && isBookFileName(entry.name)) files.push(rel);
    else if (entry.isSymbolicLink() && isBookFileName(entry.name)) {
      files.push(rel);
      (links ??= new Set()).add(rel);
    }
  }
  files.sort();
  subdirs.sort();
  return { files, subdirs, links };
}

/**
 * `walkLibrary` in blocking calls, for a thread that has nothing else to do (see walk-thread.ts): the same files,
 * the same rules, the same order. `found` gets each folder's books; a folder other than the root that cannot be
 * read goes to `onError`, an unreadable root throws.
 */
export function walkLibrarySync(
  root: string,
  found: (files: FoundFile[]) => void,
  onError?: (relPath: string, err: unknown) => void,
): void {
  // As realRootOnce: resolved once, when the first symbolic link is met; null when it cannot be.
  let realRoot: string | null | undefined;
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
    const { files, subdirs, links } = sortEntries(dir, entries);
    const books: FoundFile[] = [];
    for (const rel of files) {
      let s;
      try {
        if (links?.has(rel)) {
          if (realRoot === undefined) {
            try {
              realRoot = realpathSync.native(root);
            } catch {
              realRoot = null;
            }
          }
          // Followed only to a file inside the library (see statLink); a dangling link throws here.
          const real = realpathSync.native(path.join(root, rel));
          if (realRoot === null || !insideRoot(realRoot, real)) continue;
          s = statSync(real);
        } else {
          s = statSync(path.join(root, rel));
        }
      } catch (err) {
        const misnamed = unreadableName(rel, err);
        if (misnamed) onError?.(rel, misnamed);
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
 * Hidden entries (dot files and folders, `__MACOSX`) are skipped. A symbolic link to a file is followed only
 * when the file's real path lies inside the root's real path (a link out of the library is skipped, as a
 * dangling one is: serving refuses such a file); links to folders are not followed (no cycles, no escaping
 * the library root).
 *
 * `readdir()` and `stat()` calls of the whole tree share one bound (`concurrency`), so the thread pool stays
 * busy across folder boundaries: a library of many small series folders is otherwise walked one folder (and
 * one round of a handful of stat calls) at a time, and an unchanged rescan is little more than this walk.
 * Results still come out in the same order as a sequential walk.
 */
export async function* walkLibrary(root: string, options: WalkOptions = {}): AsyncGenerator<FoundFile[]> {
  const { signal } = options;
  const io = new IoQueue(options.concurrency ?? 32, signal);
  const realRoot = realRootOnce(root);
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
        const { files, subdirs, links } = sortEntries(dir, entries ?? []);
        return { found: statFiles(io, root, files, links, realRoot, options.onError), subdirs: subdirs.map(visit) };
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
