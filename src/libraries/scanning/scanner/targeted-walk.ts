import path from 'node:path';
import { excludedBy, type ExcludeRules } from './exclude.js';
import { walkLibrary, type FoundFile, type WalkOptions } from './walk.js';

/** Folders relative to the library root, `/` separators, no leading or trailing `/`; `''` is the root. */
export function normalizeFolder(relPath: string): string {
  return relPath
    .split(/[\\/]+/)
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** Whether `relPath` lies in (or is) `folder`. */
export function under(folder: string, relPath: string): boolean {
  return folder === '' || relPath === folder || relPath.startsWith(`${folder}/`);
}

export function underAny(folders: readonly string[], relPath: string): boolean {
  return folders.some((folder) => under(folder, relPath));
}

/**
 * The smallest set of folders covering `paths` (a folder inside another is dropped), or null for the whole
 * library (no paths given, or the root among them). A `..` anywhere refuses the whole request: whole library.
 */
export function targetsOf(paths: readonly string[] | undefined): string[] | null {
  if (!paths) return null;
  const folders = [...new Set(paths.map(normalizeFolder))].sort();
  if (folders.length === 0 || folders.includes('') || folders.some((f) => f.split('/').includes('..'))) return null;
  const kept: string[] = [];
  for (const folder of folders) if (!underAny(kept, folder)) kept.push(folder);
  return kept;
}

/**
 * Walks only the given folders of a library, one after the other; a folder that is gone (or is no longer a
 * folder) yields nothing, so its books are found missing, or moved by hash to where they reappear.
 */
export async function* walkTargets(
  root: string,
  targets: readonly string[],
  options: Pick<WalkOptions, 'signal' | 'onError'>,
): AsyncGenerator<FoundFile[]> {
  for (const target of targets) {
    try {
      for await (const files of walkLibrary(path.join(root, target), {
        signal: options.signal,
        concurrency: 16,
        onError: (rel, err) => options.onError?.(`${target}/${rel}`, err),
      })) {
        yield files.map((file) => ({ ...file, relPath: `${target}/${file.relPath}` }));
      }
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      if (options.signal?.aborted) throw err;
      // The folder is there but cannot be read: its books are kept, as for any unreadable folder.
      options.onError?.(target, err);
    }
  }
}

/** The walk without the files the library's `exclude` globs leave out. */
export async function* withoutExcluded(walk: AsyncGenerator<FoundFile[]>, rules: ExcludeRules): AsyncGenerator<FoundFile[]> {
  if (rules.length === 0) {
    yield* walk;
    return;
  }
  for await (const files of walk) {
    const kept = files.filter((file) => excludedBy(rules, file.relPath) === null);
    if (kept.length > 0) yield kept;
  }
}
