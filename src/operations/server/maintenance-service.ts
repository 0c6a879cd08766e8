import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { cachedPath, listCachedHashes, removeCachedForHash } from '../../media/rendering/derived-cache.js';
import type { MaintenanceRepository } from './maintenance-repository.js';

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
    private readonly repo: MaintenanceRepository,
    private readonly cacheDir: string,
  ) {}

  async cleanupThumbnails(): Promise<CleanupResult> {
    const cached = await listCachedHashes(this.cacheDir);
    const known = await this.repo.knownHashes(cached);
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
