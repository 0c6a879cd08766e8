import { randomUUID } from 'node:crypto';
import type { EventBus } from '../../events/bus.js';
import { rootPresent } from '../scanning/scanner/scanner.js';
import { walkTargets } from '../scanning/scanner/targeted-walk.js';
import type { LibraryRepository } from '../repository.js';
import { parseScanningConfig, type ScanningConfig } from '../schemas.js';
import type { ScanService } from '../scanning/service.js';
import { watchByPolling, watchEvents, type FolderChanges } from './folder-changes.js';
import type { WatchLeaseRepository } from './repository.js';

/** `watching` (file-system events), `polling`, `paused` (folder missing), `off`, `elsewhere` (another instance), `failed`. */
export type WatchState = 'watching' | 'polling' | 'paused' | 'off' | 'elsewhere' | 'failed';

export interface LibraryWatchStatus {
  library_id: string;
  state: WatchState;
  /** Why, in a sentence (paused, failed, elsewhere). */
  reason: string | null;
  since: string;
  /** Folders changed and waiting for quiet (relative to the library folder). */
  pending_folders: string[];
  /** Files whose size or time was still changing at the last look (relative to the library folder). */
  being_written: string[];
}

export interface WatchServiceOptions {
  /** How often leases are renewed and libraries' folders and configurations looked at again. */
  checkIntervalMs: number;
  /** A lease not renewed for this long is free for another instance. */
  leaseTtlMs: number;
  log?: { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };
}

interface LibraryRef {
  id: string;
  path: string;
  config: ScanningConfig;
}

/**
 * One library's watch: changes come in (folder-changes.ts) as folders; once no change has come for the library's
 * quiet period, the folders' book files are looked at twice, a moment apart: when a size or time still moves, a
 * file is being written and the wait starts again; else one targeted scan of those folders is queued (merged into
 * a pending one). A scan running meanwhile makes it wait again (the running scan may have walked them before).
 */
class LibraryWatch {
  readonly pending = new Set<string>();
  beingWritten: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private source: FolderChanges | undefined;
  private settling = false;
  private closed = false;
  private changedWhileSettling = false;

  constructor(
    readonly library: LibraryRef,
    private readonly scans: ScanService,
    private readonly onFailure: (err: Error) => void,
    private readonly log: WatchServiceOptions['log'],
  ) {}

  get quietMs(): number {
    return Math.max(50, this.library.config.watch_quiet_seconds * 1000);
  }

  async start(): Promise<'watching' | 'polling'> {
    const changed = (folders: string[]) => this.changed(folders);
    const poll = this.library.config.watch_poll_seconds;
    if (poll !== null) {
      this.source = watchByPolling(this.library.path, poll * 1000, changed, this.onFailure);
      return 'polling';
    }
    this.source = await watchEvents(this.library.path, changed, this.onFailure);
    return 'watching';
  }

  changed(folders: readonly string[]): void {
    if (this.closed) return;
    for (const folder of folders) this.pending.add(folder);
    if (this.settling) this.changedWhileSettling = true;
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.settle(), this.quietMs);
    this.timer.unref();
  }

  /** Book files of the pending folders with their size and time. */
  private async snapshot(folders: readonly string[]): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    for await (const batch of walkTargets(this.library.path, folders, {}))
      for (const f of batch) files.set(f.relPath, `${f.size}:${f.mtimeMs}`);
    return files;
  }

  private async settle(): Promise<void> {
    if (this.closed || this.settling || this.pending.size === 0) return;
    this.settling = true;
    this.changedWhileSettling = false;
    try {
      // The folder gone (unmounted): the service's next check pauses this watch; nothing is queued meanwhile.
      if (!(await rootPresent(this.library.path))) {
        this.arm();
        return;
      }
      const folders = [...this.pending];
      const before = await this.snapshot(folders);
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.quietMs, 1000)));
      const after = await this.snapshot(folders);
      const moving = [...after].filter(([rel, sig]) => before.get(rel) !== sig).map(([rel]) => rel);
      this.beingWritten = moving;
      if (this.closed) return;
      if (moving.length > 0 || this.changedWhileSettling) {
        this.arm();
        return;
      }
      const answer = await this.scans.requestFolderScan(this.library.id, folders, 'watch');
      if (answer === 'busy') {
        this.arm();
        return;
      }
      for (const folder of folders) this.pending.delete(folder);
      this.log?.info?.({ library_id: this.library.id, folders }, 'watch: scan of changed folders queued');
    } catch (err) {
      this.log?.warn({ library_id: this.library.id, err }, 'watch: changed folders not queued for a scan (tried again)');
      this.arm();
    } finally {
      this.settling = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.source?.close().catch(() => undefined);
  }
}

/**
 * Watches every library with `scanning_config.watch` (on by default) whose folder is there, in the one process
 * holding its lease (repository.ts). Every `checkIntervalMs` (and when a library is created, changed or
 * deleted) it looks again: a folder gone pauses the watch (a scan then refuses to run, so nothing is deleted), a
 * folder back resumes it with a scan of the whole library (changes made meanwhile were not seen).
 */
export class WatchService {
  private readonly holder = randomUUID();
  private readonly watches = new Map<string, LibraryWatch>();
  private readonly status = new Map<string, LibraryWatchStatus>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private recheck = false;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: { libraries: LibraryRepository; leases: WatchLeaseRepository; scans: ScanService; bus: EventBus },
    private readonly options: WatchServiceOptions,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    const offs = (['library_created', 'library_updated', 'library_deleted'] as const).map((type) =>
      this.deps.bus.on(type, () => void this.check()),
    );
    this.unsubscribe = () => offs.forEach((off) => off());
    await this.check();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await this.checking.catch(() => undefined);
    const ids = [...this.watches.keys()];
    await Promise.all([...this.watches.values()].map((w) => w.close()));
    this.watches.clear();
    await Promise.all(ids.map((id) => this.deps.leases.release(id, this.holder).catch(() => undefined)));
  }

  /** Every library's watch state (for Administration and /health). */
  list(): LibraryWatchStatus[] {
    return [...this.status.values()].map((s) => {
      const watch = this.watches.get(s.library_id);
      return { ...s, pending_folders: watch ? [...watch.pending] : [], being_written: watch?.beingWritten ?? [] };
    });
  }

  get(libraryId: string): LibraryWatchStatus | undefined {
    return this.list().find((s) => s.library_id === libraryId);
  }

  /** Sentences for /health: libraries whose folder is missing. */
  problems(): string[] {
    return [...this.status.values()].filter((s) => s.state === 'paused').map((s) => `library ${s.library_id}: ${s.reason ?? s.state}`);
  }

  /** Looks at every library again (serialised: a check asked for during one runs right after it). */
  check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.recheck = true;
    const run = async () => {
      while (this.recheck && !this.stopped) {
        this.recheck = false;
        await this.checkAll().catch((err: unknown) => this.options.log?.warn({ err }, 'watch: libraries not checked (tried again)'));
      }
      if (!this.stopped) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.check(), this.options.checkIntervalMs);
        this.timer.unref();
      }
    };
    this.checking = this.checking.then(run, run);
    return this.checking;
  }

  private setStatus(libraryId: string, state: WatchState, reason: string | null): void {
    const current = this.status.get(libraryId);
    if (current?.state === state && current.reason === reason) return;
    if (state === 'paused' || state === 'failed') this.options.log?.warn({ library_id: libraryId, reason }, `watch: ${state}`);
    this.status.set(libraryId, {
      library_id: libraryId,
      state,
      reason,
      since: new Date().toISOString(),
      pending_folders: [],
      being_written: [],
    });
  }

  private async stopWatch(libraryId: string, releaseLease: boolean): Promise<void> {
    const watch = this.watches.get(libraryId);
    this.watches.delete(libraryId);
    await watch?.close();
    if (releaseLease) await this.deps.leases.release(libraryId, this.holder).catch(() => undefined);
  }

  private async checkAll(): Promise<void> {
    const rows = await this.deps.libraries.list();
    const seen = new Set<string>();
    for (const row of rows) {
      if (this.stopped) return;
      seen.add(row.id);
      await this.checkLibrary({ id: row.id, path: row.path, config: parseScanningConfig(row.scanning_config) });
    }
    for (const id of [...this.status.keys()]) {
      if (seen.has(id)) continue;
      await this.stopWatch(id, false);
      this.status.delete(id);
    }
  }

  private async checkLibrary(library: LibraryRef): Promise<void> {
    const previous = this.status.get(library.id);
    if (!library.config.watch) {
      await this.stopWatch(library.id, true);
      this.setStatus(library.id, 'off', null);
      return;
    }
    if (!(await rootPresent(library.path))) {
      await this.stopWatch(library.id, true);
      this.setStatus(
        library.id,
        'paused',
        `the library folder is missing (an unmounted drive?): watching is paused and its books are kept until a scan sees the folder again`,
      );
      return;
    }
    if (!(await this.deps.leases.acquire(library.id, this.holder, this.options.leaseTtlMs))) {
      await this.stopWatch(library.id, false);
      this.setStatus(library.id, 'elsewhere', 'another instance of the server watches this library');
      return;
    }
    const current = this.watches.get(library.id);
    const same =
      current &&
      current.library.path === library.path &&
      current.library.config.watch_poll_seconds === library.config.watch_poll_seconds &&
      current.library.config.watch_quiet_seconds === library.config.watch_quiet_seconds;
    if (same && previous?.state !== 'failed') return;
    await this.stopWatch(library.id, false);
    const watch = new LibraryWatch(
      library,
      this.deps.scans,
      (err) => {
        this.setStatus(library.id, 'failed', `watching stopped: ${err.message}`);
        void this.stopWatch(library.id, false).then(() => this.check());
      },
      this.options.log,
    );
    try {
      const state = await watch.start();
      if (this.stopped) {
        await watch.close();
        return;
      }
      this.watches.set(library.id, watch);
      this.setStatus(library.id, state, null);
    } catch (err) {
      await watch.close();
      this.setStatus(library.id, 'failed', `watching could not start: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    // The folder is back after a pause: what changed meanwhile was not seen, so the whole library is scanned.
    if (previous?.state === 'paused') watch.changed(['']);
  }
}
