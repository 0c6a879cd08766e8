import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, conflict } from '../http/errors.js';
import { phrase } from '../i18n/messages.js';

/** Who asks, and which folders may hold libraries (`libraries.allowed_roots`; empty means any folder). */
export interface LibraryPathPolicy {
  allowedRoots: readonly string[];
  /** Administrators are told why a path is refused; everyone else gets one answer for every refusal. */
  detailedErrors: boolean;
}

/**
 * The one answer below admin for a path that is missing, not a directory, unreadable or outside the allowed
 * roots: telling them apart would let a maintainer probe which server paths exist.
 */
export const REFUSED_PATH_MESSAGE = phrase('path is not a folder this server may publish as a library');

/**
 * A library path must be absolute, exist, be a readable directory, lie inside an allowed root (when roots are
 * configured), and not overlap another library (identical, inside it, or containing it: the same file would
 * belong to two libraries). Returns the normalised path to store.
 */
export async function checkLibraryPath(
  input: string,
  others: readonly { id: string; path: string }[],
  policy: LibraryPathPolicy = { allowedRoots: [], detailedErrors: true },
): Promise<string> {
  if (!path.isAbsolute(input)) throw badRequest('path must be absolute', { field: 'path', path: input });
  const normalised = path.resolve(input);
  const refuse = (message: string, details: Record<string, unknown> = {}) =>
    policy.detailedErrors
      ? badRequest(message, { field: 'path', path: input, ...details })
      : badRequest(REFUSED_PATH_MESSAGE, { field: 'path' });
  // Checked before the folder is looked at, so a path outside the roots tells nothing about the disk.
  if (policy.allowedRoots.length > 0 && !withinAny(normalised, policy.allowedRoots)) {
    throw refuse(`path is outside the folders allowed for libraries: ${policy.allowedRoots.join(', ')} (libraries.allowed_roots)`, {
      allowed_roots: policy.allowedRoots,
    });
  }
  let info;
  try {
    info = await stat(normalised);
  } catch {
    throw refuse('path does not exist');
  }
  if (!info.isDirectory()) throw refuse('path is not a directory');
  try {
    await access(normalised, constants.R_OK | constants.X_OK);
  } catch {
    throw refuse('path is not readable by the server');
  }
  const real = await realpath(normalised);
  // A symbolic link inside a root that points elsewhere does not make the elsewhere publishable.
  if (policy.allowedRoots.length > 0 && !withinAny(real, await realRoots(policy.allowedRoots))) {
    throw refuse('path resolves (through a symbolic link) outside the folders allowed for libraries (libraries.allowed_roots)', {
      allowed_roots: policy.allowedRoots,
      resolved: real,
    });
  }
  for (const other of others) {
    const otherReal = await realpath(other.path).catch(() => path.resolve(other.path));
    if (overlaps(real, otherReal) || overlaps(normalised, path.resolve(other.path))) {
      throw conflict('path overlaps another library', { field: 'path', library_id: other.id, library_path: other.path });
    }
  }
  return normalised;
}

/** Whether `target` is one of the roots or lies below one (lexically: resolve both first). */
export function withinAny(target: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const base = path.resolve(root);
    return target === base || target.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
  });
}

/** The roots with symbolic links resolved (a root that does not exist stays as written). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map((root) => realpath(root).catch(() => path.resolve(root))));
}

function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const within = (inner: string, outer: string) => inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);
  return within(a, b) || within(b, a);
}
