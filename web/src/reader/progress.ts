/**
 * Saves the reader's position as it moves: debounced while pages turn, at once when the page is hidden or
 * left (with `keepalive`, so the request outlives the tab), and never in the way of page images (saves go out
 * one at a time, after the turn). A save the server did not take (offline, server restarting) is kept in
 * localStorage — the outbox: every position with the time the reader was there and an id of its own — and sent,
 * oldest first, when the connection returns or the reader next opens: no position is lost, and one sent twice
 * (its answer lost) is recorded once (the server knows its id).
 */

export type ProgressBody =
  | { kind: 'page'; current_page: number }
  | { kind: 'locator'; locator: { href: string; cfi?: string; progression?: number }; percentage: number };

interface Pending {
  bookId: string;
  body: ProgressBody;
  /** When the reader moved there (ms since the epoch): sent as the position's time, so that a late one stays history. */
  at: number;
  /** The position's own id (sent as `entry_id`); absent in entries queued before ids were given. */
  id?: string;
}

/** The most positions of one book the outbox keeps (a week of reading offline is far fewer); the oldest go first. */
const MAX_PER_BOOK = 500;

const newEntryId = (): string | undefined => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : undefined);

const QUEUE_KEY = 'colophon.reader.pending-progress';

export interface ProgressTransport {
  /**
   * `recordedAt`: for a position sent late, when the reader was there; omitted, the server's time of arrival.
   * `entryId`: the queued position's id, so a second sending of it is not recorded again.
   */
  send(bookId: string, body: ProgressBody, keepalive: boolean, recordedAt?: number, entryId?: string): Promise<boolean>;
}

export function readPending(storage: Pick<Storage, 'getItem'>): Pending[] {
  try {
    const value = JSON.parse(storage.getItem(QUEUE_KEY) ?? '[]') as unknown;
    return Array.isArray(value) ? (value as Pending[]) : [];
  } catch {
    return [];
  }
}

function writePending(storage: Pick<Storage, 'setItem' | 'removeItem'>, list: Pending[]): void {
  if (list.length === 0) storage.removeItem(QUEUE_KEY);
  else storage.setItem(QUEUE_KEY, JSON.stringify(list));
}

export class ProgressSaver {
  private latest: ProgressBody | null = null;
  private latestAt = 0;
  private sent: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();
  /** This book's last position could not be sent and waits in the queue (the reader says so). */
  queued = false;

  constructor(
    private readonly bookId: string,
    private readonly transport: ProgressTransport,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>,
    private readonly delayMs = 1500,
    /** Incognito: read without saving anything. */
    public incognito = false,
  ) {}

  /** The reader moved: saved after `delayMs` without another move. */
  moved(body: ProgressBody): void {
    if (this.incognito) return;
    this.latest = body;
    this.latestAt = Date.now();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(false), this.delayMs);
  }

  /** Sends the latest position now (on pagehide / visibilitychange: keepalive). */
  async flush(keepalive: boolean): Promise<void> {
    clearTimeout(this.timer);
    if (this.incognito || !this.latest) return;
    const body = this.latest;
    const at = this.latestAt;
    const key = JSON.stringify(body);
    if (key === this.sent) return;
    if (this.inFlight && !keepalive) await this.inFlight;
    const run = this.transport.send(this.bookId, body, keepalive).then(
      (ok) => this.settle(ok, body, key, at),
      () => this.settle(false, body, key, at),
    );
    this.inFlight = run;
    await run;
  }

  private settle(ok: boolean, body: ProgressBody, key: string, at: number): void {
    if (ok) {
      // Positions of this book still queued stay: they are older, and go to the history when sent.
      this.sent = key;
    } else {
      const queued = readPending(this.storage);
      const mine = queued.filter((p) => p.bookId === this.bookId);
      const others = queued.filter((p) => p.bookId !== this.bookId);
      const id = newEntryId();
      const entry: Pending = { bookId: this.bookId, body, at, ...(id ? { id } : {}) };
      writePending(this.storage, [...others, ...[...mine, entry].slice(-MAX_PER_BOOK)]);
    }
    this.setQueued(!ok);
  }

  /** Looks at the queue again (after queued positions were sent). */
  recheck(): void {
    this.setQueued(readPending(this.storage).some((p) => p.bookId === this.bookId));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private setQueued(queued: boolean): void {
    if (queued === this.queued) return;
    this.queued = queued;
    for (const l of this.listeners) l();
  }

  /** Incognito on drops the position not yet sent. */
  setIncognito(on: boolean): void {
    this.incognito = on;
    if (on) {
      clearTimeout(this.timer);
      this.latest = null;
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/**
 * Sends positions kept while the server was unreachable, each with the time the reader was there (a device that
 * read on meanwhile keeps its newer position); those the server takes leave the queue. `bookId`: that book's only.
 */
export async function sendPending(
  transport: ProgressTransport,
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>,
  bookId?: string,
): Promise<number> {
  const pending = readPending(storage).filter((p) => bookId === undefined || p.bookId === bookId);
  let sent = 0;
  for (const p of pending) {
    let ok = false;
    try {
      ok = await transport.send(p.bookId, p.body, false, p.at, p.id);
    } catch {
      ok = false;
    }
    if (ok) {
      sent += 1;
      // Re-read: a save made meanwhile for another book must not be lost.
      writePending(
        storage,
        readPending(storage).filter((q) => !(q.bookId === p.bookId && q.at === p.at && q.id === p.id)),
      );
    }
  }
  return sent;
}
