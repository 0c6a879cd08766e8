import path from 'node:path';

/*
 * Where libraries live is shown only to those who manage them (docs/security.md): analysis errors, scan decisions,
 * task outcomes name files by absolute path, and the others read them relative to the library folder.
 */

/** The message with the library folder's absolute path made relative to it (`./` for the folder itself). */
export function relativeToLibrary(message: string, root: string | undefined): string {
  const base = root?.endsWith(path.sep) ? root.slice(0, -1) : root;
  // A library at the filesystem root (`/`) has no prefix to remove without mangling every other slash.
  if (!base) return message;
  return message.split(`${base}${path.sep}`).join('').split(base).join('.');
}

/** Every text of the value (objects and arrays walked) with `relativeToLibrary` applied. */
export function withLibraryRelativePaths<T>(value: T, root: string | undefined): T {
  if (typeof value === 'string') return relativeToLibrary(value, root) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => withLibraryRelativePaths(v, root)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withLibraryRelativePaths(v, root)])) as T;
  return value;
}
