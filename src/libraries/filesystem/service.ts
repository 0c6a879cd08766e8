import { existsSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import { realRoots, withinAny } from '../paths.js';

export interface DirectoryEntry {
  name: string;
  path: string;
  is_directory: boolean;
  size: number | null;
  modified: string | null;
}

export interface DirectoryListing {
  path: string;
  parent: string | null;
  entries: DirectoryEntry[];
  truncated: boolean;
}

// A folder with more entries than this is listed partially (the admin picks library folders, not files).
const MAX_ENTRIES = 5000;

/**
 * Server-side folder browsing for the admin choosing a library path. One directory per call, never
 * recursive, so symlink loops cannot trap it; the path is normalised, so `..` only ever means the parent.
 */
export class FilesystemService {
  /** `libraries.allowed_roots`: when set, browsing stays inside them (nothing outside could become a library). */
  constructor(private readonly allowedRoots: readonly string[] = []) {}

  async browse(rawPath: string | undefined, showHidden: boolean): Promise<DirectoryListing> {
    const requested = rawPath && rawPath.length > 0 ? rawPath : (this.allowedRoots[0] ?? path.parse(process.cwd()).root);
    if (requested.includes('\0')) throw badRequest('Path contains a NUL character');
    if (!path.isAbsolute(requested)) throw badRequest('Path must be absolute', { path: requested });
    const dir = path.resolve(requested);
    let names: string[];
    try {
      if (
        this.allowedRoots.length > 0 &&
        !(withinAny(dir, this.allowedRoots) && withinAny(await realpath(dir), await realRoots(this.allowedRoots)))
      ) {
        throw new AppError(
          403,
          'Forbidden',
          `${dir} is outside the folders allowed for libraries: ${this.allowedRoots.join(', ')} (libraries.allowed_roots)`,
          {
            path: dir,
            allowed_roots: this.allowedRoots,
          },
        );
      }
      const info = await stat(dir);
      if (!info.isDirectory()) throw badRequest('Path is not a directory', { path: dir });
      names = await readdir(dir);
    } catch (err) {
      throw fsError(err, dir);
    }
    const visible = names.filter((n) => showHidden || !n.startsWith('.'));
    const truncated = visible.length > MAX_ENTRIES;
    const entries = await Promise.all(visible.slice(0, MAX_ENTRIES).map((name) => describe(dir, name)));
    entries.sort(
      (a, b) =>
        Number(b.is_directory) - Number(a.is_directory) || a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }),
    );
    const parent = path.dirname(dir);
    const atTop = parent === dir || (this.allowedRoots.length > 0 && !withinAny(parent, this.allowedRoots));
    return { path: dir, parent: atTop ? null : parent, entries, truncated };
  }

  /**
   * Where browsing can start: the allowed roots when there are any (the picker offers each; none is above
   * another's "up one level"). Otherwise, on Windows the drive letters that exist, elsewhere the single root `/`.
   */
  drives(): Array<{ name: string; path: string }> {
    if (this.allowedRoots.length > 0) return this.allowedRoots.map((root) => ({ name: root, path: root }));
    if (process.platform !== 'win32') return [{ name: '/', path: '/' }];
    return 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
      .split('')
      .map((l) => `${l}:\\`)
      .filter((p) => existsSync(p))
      .map((p) => ({ name: p.slice(0, 2), path: p }));
  }
}

async function describe(dir: string, name: string): Promise<DirectoryEntry> {
  const full = path.join(dir, name);
  try {
    // stat follows symlinks: a link to a folder is browsable like the folder.
    const info = await stat(full);
    return {
      name,
      path: full,
      is_directory: info.isDirectory(),
      size: info.isDirectory() ? null : info.size,
      modified: info.mtime.toISOString(),
    };
  } catch {
    // A broken link or an entry we may not stat: still listed, without details.
    return { name, path: full, is_directory: false, size: null, modified: null };
  }
}

function fsError(err: unknown, dir: string): unknown {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return notFound(`Directory ${dir}`);
  if (code === 'EACCES' || code === 'EPERM') return new AppError(403, 'Forbidden', `The server may not read ${dir}`, { path: dir });
  if (code === 'ELOOP') return badRequest(`Too many symbolic links in ${dir}`);
  if (code === 'ENAMETOOLONG' || code === 'EINVAL') return badRequest(`Not a usable path: ${dir}`, { path: dir, code });
  return err;
}
