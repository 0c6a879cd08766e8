import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
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

/**
 * Streams every book file under `root` (by extension), depth-first, with bounded parallel stat() calls.
 * Hidden entries (dot files and folders, `__MACOSX`) are skipped; symbolic links to files are followed,
 * links to folders are not (no cycles, no escaping the library root).
 */
export async function* walkLibrary(root: string, options: WalkOptions = {}): AsyncGenerator<FoundFile[]> {
  const concurrency = options.concurrency ?? 32;
  const pending: string[] = [''];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, dir), { withFileTypes: true });
    } catch (err) {
      if (dir === '') throw err;
      options.onError?.(dir, err);
      continue;
    }
    const files: string[] = [];
    const subdirs: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === '__MACOSX') continue;
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) subdirs.push(rel);
      else if ((entry.isFile() || entry.isSymbolicLink()) && isBookFileName(entry.name)) files.push(rel);
    }
    // Reverse so that popping visits folders in name order.
    subdirs.sort().reverse();
    pending.push(...subdirs);
    files.sort();
    for (let i = 0; i < files.length; i += concurrency) {
      options.signal?.throwIfAborted();
      const chunk = files.slice(i, i + concurrency);
      const stats = await Promise.all(chunk.map((rel) => stat(path.join(root, rel)).catch(() => null)));
      const found: FoundFile[] = [];
      chunk.forEach((rel, j) => {
        const s = stats[j];
        if (s?.isFile()) found.push({ relPath: rel, size: s.size, mtimeMs: Math.floor(s.mtimeMs) });
      });
      if (found.length > 0) yield found;
    }
  }
}
