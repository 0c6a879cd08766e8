import { readdir, stat, unlink, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** A hit refreshes the file's mtime (the order kept across restarts) at most this often. */
const TOUCH_EVERY_MS = 60_000;

interface Tracked {
  bytes: number;
  touchedAt: number;
}

/**
 * A size budget for one kind of derived image in the disk cache (resized pages: `page-*` files), with least
 * recently used eviction. The order lives in memory (a Map in use order) and, across restarts, in the files'
 * mtimes, which hits refresh now and then: the first write after a start lists what is on disk, oldest first.
 * Several processes sharing data_dir each keep their own tally: a file another one removed is simply gone.
 */
export class DerivedCacheBudget {
  private readonly files = new Map<string, Tracked>();
  private bytes = 0;
  private loaded: Promise<void> | null = null;

  constructor(
    private readonly cacheDir: string,
    private readonly maxBytes: number,
    /** Which cached files the budget covers, by file name. */
    private readonly covers: (variant: string) => boolean,
  ) {}

  /** Bytes of covered files this process knows of. */
  get usedBytes(): number {
    return this.bytes;
  }

  /** A covered file was served from the cache: it becomes the most recently used. */
  touched(path: string): void {
    const known = this.files.get(path);
    if (!known) return;
    this.files.delete(path);
    this.files.set(path, known);
    const now = Date.now();
    if (now - known.touchedAt >= TOUCH_EVERY_MS) {
      known.touchedAt = now;
      utimes(path, now / 1000, now / 1000).catch(() => undefined);
    }
  }

  /**
   * A covered file was written: counted, then the least recently used go until the total is within budget.
   * Call it after reading the file for the response.
   */
  async added(path: string): Promise<void> {
    await this.load();
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) return;
    const old = this.files.get(path);
    if (old) this.bytes -= old.bytes;
    this.files.delete(path);
    this.files.set(path, { bytes: size, touchedAt: Date.now() });
    this.bytes += size;
    await this.evict();
  }

  /** Oldest first; a file larger than the whole budget goes too, last (its caller has already read it). */
  private async evict(): Promise<void> {
    for (const [path, tracked] of this.files) {
      if (this.bytes <= this.maxBytes) break;
      this.files.delete(path);
      this.bytes -= tracked.bytes;
      await unlink(path).catch(() => undefined);
    }
  }

  /** Starts listing what is on disk now, so the first write after a start does not wait for it. */
  prepare(): void {
    this.load().catch(() => undefined);
  }

  /** Lists the covered files already on disk, least recently used (oldest mtime) first. */
  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const found: Array<{ path: string; bytes: number; mtimeMs: number }> = [];
      for (const shard of await readdir(this.cacheDir).catch(() => [])) {
        if (!/^[a-f0-9]{2}$/.test(shard)) continue;
        for (const hash of await readdir(join(this.cacheDir, shard)).catch(() => [])) {
          const dir = join(this.cacheDir, shard, hash);
          for (const name of await readdir(dir).catch(() => [])) {
            if (!this.covers(name)) continue;
            const path = join(dir, name);
            const s = await stat(path).catch(() => null);
            if (s?.isFile()) found.push({ path, bytes: s.size, mtimeMs: s.mtimeMs });
          }
        }
      }
      found.sort((a, b) => a.mtimeMs - b.mtimeMs);
      // Files written while the listing ran are already tracked: they stay, as the most recent.
      const tracked = [...this.files];
      this.files.clear();
      for (const f of found) {
        this.files.set(f.path, { bytes: f.bytes, touchedAt: f.mtimeMs });
        this.bytes += f.bytes;
      }
      for (const [path, t] of tracked) {
        const listed = this.files.get(path);
        if (listed) this.bytes -= listed.bytes;
        this.files.delete(path);
        this.files.set(path, t);
      }
    })();
    return this.loaded;
  }
}

/** Resized pages, as the page service names them (`page-<n>-w…`); covers (`thumb-…`) are not budgeted. */
export function isResizedPage(variant: string): boolean {
  return basename(variant).startsWith('page-');
}
