import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import watcher from '@parcel/watcher';
import { isBookFileName } from '../../media/index.js';

/** Where rejected files (and books an upgrade replaced) are moved, inside the inbox folder; never looked at again. */
export const REJECTED_FOLDER = 'rejected';

/** Names of files still being downloaded by browsers and torrent clients: not files yet. */
const PARTIAL = /\.(part|partial|crdownload|download|tmp|!qb|aria2)$/i;

export interface InboxFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** A book format Colophon reads (by its name); other files are reported as unsupported. */
  supported: boolean;
}

/** The files an inbox folder holds now: hidden ones, partial downloads and the rejected folder left out. */
export async function inboxFiles(root: string): Promise<InboxFile[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: InboxFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const rel = path.relative(root, absolute).split(path.sep);
    if (rel[0] === REJECTED_FOLDER || rel.some((part) => part.startsWith('.') || part === '__MACOSX') || PARTIAL.test(entry.name)) continue;
    const info = await stat(absolute).catch(() => null);
    if (!info?.isFile()) continue;
    files.push({ path: absolute, size: info.size, mtimeMs: info.mtimeMs, supported: isBookFileName(entry.name) });
  }
  return files;
}

/**
 * One inbox folder's watch: file-system events (or the service's periodic look) start a sweep; a file is handed on
 * once its size and time have stayed the same for the quiet period, so a copy still being written (a slow network
 * copy, a download) is taken once, complete. Files handed on are not handed on again until they change.
 */
export class InboxFolderWatch {
  state: 'watching' | 'missing' | 'failed' = 'watching';
  private readonly seen = new Map<string, { signature: string; since: number }>();
  private readonly handed = new Map<string, string>();
  private subscription: watcher.AsyncSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private again = false;
  private busy = false;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly quietMs: number,
    private readonly onStable: (files: InboxFile[]) => Promise<void>,
    private readonly onError: (err: Error) => void,
  ) {}

  /** The folder it watches. */
  get path(): string {
    return this.root;
  }

  async start(): Promise<void> {
    try {
      this.subscription = await watcher.subscribe(
        this.root,
        (err) => {
          if (err) this.onError(err);
          else this.sweepSoon(this.quietMs);
        },
        { ignore: ['**/.*', '**/.*/**', `${REJECTED_FOLDER}/**`] },
      );
      // Closed while subscribing: nothing else will let go of it.
      if (this.closed) await this.subscription.unsubscribe().catch(() => undefined);
    } catch (err) {
      // A folder that cannot be watched (gone, a share without events) is still swept on every check.
      this.state = 'failed';
      this.onError(err instanceof Error ? err : new Error(String(err)));
    }
    this.sweepSoon(0);
  }

  /** Files whose size or time moved at the last sweep. */
  beingWritten(): string[] {
    const now = Date.now();
    return [...this.seen.entries()]
      .filter(([file, s]) => this.handed.get(file) !== s.signature && now - s.since < this.quietMs * 2)
      .map(([file]) => path.relative(this.root, file).split(path.sep).join('/'));
  }

  sweepSoon(delayMs = 0): void {
    if (this.closed) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.sweeping = this.sweep();
    }, delayMs);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    if (this.closed) return;
    this.busy = true;
    this.again = false;
    let waiting = false;
    try {
      const files = await inboxFiles(this.root).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          this.state = 'missing';
          return null;
        }
        throw err;
      });
      if (files === null) return;
      if (this.state === 'missing') this.state = 'watching';
      const now = Date.now();
      const stable: InboxFile[] = [];
      const present = new Set<string>();
      for (const file of files) {
        present.add(file.path);
        const signature = `${file.size}:${file.mtimeMs}`;
        const before = this.seen.get(file.path);
        if (!before || before.signature !== signature) {
          this.seen.set(file.path, { signature, since: now });
          waiting = true;
        } else if (now - before.since < this.quietMs) waiting = true;
        else if (this.handed.get(file.path) !== signature) stable.push(file);
      }
      for (const file of [...this.seen.keys()]) if (!present.has(file)) this.seen.delete(file);
      for (const file of [...this.handed.keys()]) if (!present.has(file)) this.handed.delete(file);
      await this.onStable(stable);
      for (const file of stable) this.handed.set(file.path, `${file.size}:${file.mtimeMs}`);
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.busy = false;
      if (waiting || this.again) this.sweepSoon(waiting ? this.quietMs : 0);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.subscription?.unsubscribe().catch(() => undefined);
    await this.sweeping;
  }
}
