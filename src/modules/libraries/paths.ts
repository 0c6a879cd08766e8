import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, conflict } from '../../http/errors.js';

/**
 * A library path must be absolute, exist, be a readable directory, and not overlap another library
 * (identical, inside it, or containing it: the same file would belong to two libraries). Returns the
 * normalised path to store.
 */
export async function checkLibraryPath(input: string, others: readonly { id: string; path: string }[]): Promise<string> {
  if (!path.isAbsolute(input)) throw badRequest('path must be absolute', { field: 'path', path: input });
  const normalised = path.resolve(input);
  let info;
  try {
    info = await stat(normalised);
  } catch {
    throw badRequest('path does not exist', { field: 'path', path: input });
  }
  if (!info.isDirectory()) throw badRequest('path is not a directory', { field: 'path', path: input });
  try {
    await access(normalised, constants.R_OK | constants.X_OK);
  } catch {
    throw badRequest('path is not readable by the server', { field: 'path', path: input });
  }
  const real = await realpath(normalised);
  for (const other of others) {
    const otherReal = await realpath(other.path).catch(() => path.resolve(other.path));
    if (overlaps(real, otherReal) || overlaps(normalised, path.resolve(other.path))) {
      throw conflict('path overlaps another library', { field: 'path', library_id: other.id, library_path: other.path });
    }
  }
  return normalised;
}

function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const within = (inner: string, outer: string) => inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);
  return within(a, b) || within(b, a);
}
