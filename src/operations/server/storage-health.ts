import { stat, statfs } from 'node:fs/promises';

export interface StorageVolume {
  /** What lives there, as the health check names it (`data_dir`, `database`). */
  name: string;
  path: string;
}

export interface StorageCheck {
  disk: 'ok' | 'low';
  /** Why the disk is reported low; empty when it is ok. */
  reasons: string[];
}

/** How long a write refused for lack of space keeps the disk reported low (space may return any time). */
const RECENT_FAILURE_MS = 60_000;

const mb = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MB`;

/**
 * Free space of the volumes the server writes to (data_dir; the SQLite file's folder), measured on each
 * health check, plus the last write the database or the disk refused for lack of space: PostgreSQL's own
 * volume cannot be measured from here, its 53100 errors can.
 */
export class StorageHealth {
  private lastFailure: { at: number; error: string } | null = null;

  constructor(
    private readonly volumes: readonly StorageVolume[],
    private readonly minFreeBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  recordDiskFull(err: unknown): void {
    const code = (err as { code?: unknown } | null)?.code;
    this.lastFailure = { at: this.now(), error: typeof code === 'string' ? code : 'disk full' };
  }

  async check(): Promise<StorageCheck> {
    const reasons: string[] = [];
    const seen = new Set<number>();
    for (const volume of this.volumes) {
      try {
        // Two names on one device are one volume: report it once.
        const { dev } = await stat(volume.path);
        if (seen.has(dev)) continue;
        seen.add(dev);
        const fs = await statfs(volume.path);
        const free = fs.bavail * fs.bsize;
        if (free < this.minFreeBytes)
          reasons.push(`${volume.name}: ${mb(free)} free on its volume, below health.min_free_disk_mb (${mb(this.minFreeBytes)})`);
      } catch {
        // A volume that cannot be measured is not reported as full; the database check covers a missing one.
      }
    }
    if (this.lastFailure && this.now() - this.lastFailure.at < RECENT_FAILURE_MS) {
      const seconds = Math.round((this.now() - this.lastFailure.at) / 1000);
      reasons.push(`a write was refused for lack of disk space (${this.lastFailure.error}) ${seconds} s ago`);
    }
    return { disk: reasons.length > 0 ? 'low' : 'ok', reasons };
  }
}
