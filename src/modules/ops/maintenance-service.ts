import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { cachedPath, listCachedHashes, removeCachedForHash } from '../../media/derived-cache.js';
import type { DB } from '../../db/schema.js';

export interface CleanupResult {
  orphaned_hashes: number;
  files_removed: number;
  bytes_freed: number;
  kept_hashes: number;
}

/**
 * Removes derived images whose book no longer exists. Soft-deleted books still count as existing: their
 * file may come back, and their images with them.
 */
export class MaintenanceService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly cacheDir: string,
  ) {}

  async cleanupThumbnails(): Promise<CleanupResult> {
    const cached = await listCachedHashes(this.cacheDir);
    const known = new Set<string>();
    // In slices: a huge cache must not become one giant IN list.
    for (let i = 0; i < cached.length; i += 500) {
      const slice = cached.slice(i, i + 500);
      const rows = await this.db.selectFrom('books').select('hash').where('hash', 'in', slice).execute();
      for (const r of rows) if (r.hash) known.add(r.hash);
    }
    let files = 0;
    let bytes = 0;
    const orphans = cached.filter((h) => !known.has(h));
    for (const hash of orphans) {
      bytes += await folderBytes(path.dirname(cachedPath(this.cacheDir, hash, 'probe')));
      files += await removeCachedForHash(this.cacheDir, hash);
    }
    return { orphaned_hashes: orphans.length, files_removed: files, bytes_freed: bytes, kept_hashes: known.size };
  }
}

async function folderBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const e of entries) if (e.isFile()) total += (await stat(path.join(dir, e.name)).catch(() => ({ size: 0 }))).size;
  return total;
}
