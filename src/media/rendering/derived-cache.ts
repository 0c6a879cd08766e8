import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MediaError } from '../errors.js';

/**
 * Derived images on disk, one folder per book content hash: `<cacheDir>/<ab>/<hash>/<variant>`. Keying by
 * content (not by book id) means a moved or duplicated file reuses its images, and cleanup is "remove the
 * folders of hashes no book has any more".
 */
const HASH = /^[a-f0-9]{16,128}$/;
const VARIANT = /^[a-z0-9][a-z0-9._-]{0,100}$/i;

function hashDir(cacheDir: string, hash: string): string {
  if (!HASH.test(hash)) throw new MediaError('not_found', `not a content hash: ${hash.slice(0, 80)}`);
  return join(cacheDir, hash.slice(0, 2), hash);
}

export function cachedPath(cacheDir: string, hash: string, variant: string): string {
  if (!VARIANT.test(variant)) throw new MediaError('not_found', `not a cache variant name: ${variant.slice(0, 80)}`);
  return join(hashDir(cacheDir, hash), variant);
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Writes next to the target and renames over it: readers see the old file, the new one, or none — never half. */
export async function writeAtomically(path: string, data: Buffer): Promise<void> {
  const dir = join(path, '..');
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** Productions under way, by cache path; each resolves with the image when it could not be written. */
const inFlight = new Map<string, Promise<Buffer | undefined>>();

/** Lookups of derived images in this process (for the metrics' hit ratio): found cached vs produced. */
const lookups = { hits: 0, misses: 0 };

export function derivedCacheStats(): { hits: number; misses: number } {
  return { ...lookups };
}

/** A hit served by a cache in front of this one (the page service keeps recent images in memory). */
export function recordDerivedCacheHit(): void {
  lookups.hits += 1;
}

export interface CachedFile {
  path: string;
  /** False when this call found the file already on disk. */
  generated: boolean;
  /** The image, when it was produced but could not be kept (a full disk): send these bytes, uncached. */
  data?: Buffer;
}

/**
 * Returns the cached file, producing it first when missing. Concurrent calls for the same missing file share
 * one production (per process; across processes the rename makes a double production harmless).
 */
export async function getOrCreateCached(
  cacheDir: string,
  hash: string,
  variant: string,
  produce: () => Promise<Buffer>,
): Promise<CachedFile> {
  const path = cachedPath(cacheDir, hash, variant);
  const pending = inFlight.get(path);
  if (pending) {
    const unsaved = await pending;
    lookups.hits += 1;
    return unsaved ? { path, generated: false, data: unsaved } : { path, generated: false };
  }
  if (await exists(path)) {
    lookups.hits += 1;
    return { path, generated: false };
  }
  // Checked again: another call may have started producing while we looked at the disk.
  const raced = inFlight.get(path);
  if (raced) {
    const unsaved = await raced;
    lookups.hits += 1;
    return unsaved ? { path, generated: false, data: unsaved } : { path, generated: false };
  }
  lookups.misses += 1;
  const production = (async () => {
    const data = await produce();
    try {
      await writeAtomically(path, data);
      return undefined;
    } catch {
      // The cache is an optimisation: an image that cannot be kept (disk full, read-only or broken cache
      // folder) is still served, and made again next time.
      return data;
    }
  })();
  inFlight.set(path, production);
  let unsaved: Buffer | undefined;
  try {
    unsaved = await production;
  } finally {
    inFlight.delete(path);
  }
  return unsaved ? { path, generated: true, data: unsaved } : { path, generated: true };
}

/** Content hashes that have something cached (for the orphaned-thumbnails cleanup). */
export async function listCachedHashes(cacheDir: string): Promise<string[]> {
  const hashes: string[] = [];
  let shards: string[];
  try {
    shards = await readdir(cacheDir);
  } catch {
    return hashes;
  }
  for (const shard of shards.sort()) {
    if (!/^[a-f0-9]{2}$/.test(shard)) continue;
    const entries = await readdir(join(cacheDir, shard), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && HASH.test(entry.name) && entry.name.startsWith(shard)) hashes.push(entry.name);
    }
  }
  return hashes.sort();
}

/** Removes everything cached for one content hash; returns how many files went. */
export async function removeCachedForHash(cacheDir: string, hash: string): Promise<number> {
  const dir = hashDir(cacheDir, hash);
  const files = await readdir(dir).catch(() => []);
  await rm(dir, { recursive: true, force: true });
  await rm(join(dir, '..'), { recursive: false }).catch(() => undefined);
  return files.length;
}
