import { useSyncExternalStore } from 'react';
import { DownloadError, downloadBook, downloadOf, listDownloads, removeDownload, type OfflineBook } from './downloads';

/**
 * The downloads in progress in this tab (issue 54): one book at a time, in the order asked; each can be paused
 * (what was kept stays, Resume goes on from there) or cancelled (its copy is removed). A download cut by a lost
 * connection waits and resumes by itself when the connection comes back.
 */

export type JobState =
  | { status: 'queued' }
  | { status: 'downloading'; done: number; total: number; bytes: number }
  | { status: 'paused'; done: number; total: number; reason: 'asked' | 'offline' }
  | { status: 'failed'; reason: 'quota' | 'refused' }
  | { status: 'done'; book: OfflineBook };

const jobs = new Map<string, JobState>();
const listeners = new Set<() => void>();
const queue: string[] = [];
let running: { bookId: string; controller: AbortController } | null = null;
let version = 0;

function set(bookId: string, state: JobState | undefined): void {
  if (state) jobs.set(bookId, state);
  else jobs.delete(bookId);
  version += 1;
  for (const listener of listeners) listener();
}

async function runQueue(): Promise<void> {
  if (running) return;
  const bookId = queue.shift();
  if (!bookId) return;
  const controller = new AbortController();
  running = { bookId, controller };
  const previous = jobs.get(bookId);
  set(bookId, {
    status: 'downloading',
    done: previous && 'done' in previous && typeof previous.done === 'number' ? previous.done : 0,
    total: previous && 'total' in previous ? previous.total : 0,
    bytes: 0,
  });
  try {
    const book = await downloadBook(bookId, controller.signal, (b) =>
      set(bookId, { status: 'downloading', done: b.done, total: b.total, bytes: b.bytes }),
    );
    retries.delete(bookId);
    if (book.complete) set(bookId, { status: 'done', book });
    else if (jobs.get(bookId)?.status !== 'paused') set(bookId, { status: 'paused', done: book.done, total: book.total, reason: 'asked' });
  } catch (err) {
    const current = jobs.get(bookId);
    if (controller.signal.aborted) {
      // Paused or cancelled: the one who aborted set the state.
    } else if (err instanceof DownloadError && err.reason === 'network') {
      const at = current?.status === 'downloading' ? current : { done: 0, total: 0 };
      set(bookId, { status: 'paused', done: at.done, total: at.total, reason: 'offline' });
      retryLater(bookId);
    } else {
      set(bookId, { status: 'failed', reason: err instanceof DownloadError && err.reason === 'quota' ? 'quota' : 'refused' });
    }
  } finally {
    running = null;
    void runQueue();
  }
}

/** Tries a download cut by the network again, 5 s later, then less and less often (at most every minute). */
const retries = new Map<string, number>();
function retryLater(bookId: string): void {
  const attempt = (retries.get(bookId) ?? 0) + 1;
  retries.set(bookId, attempt);
  setTimeout(
    () => {
      const state = jobs.get(bookId);
      if (state?.status === 'paused' && state.reason === 'offline') startDownload(bookId);
    },
    Math.min(60_000, 5_000 * attempt),
  );
}

export function startDownload(bookId: string): void {
  if (running?.bookId === bookId || queue.includes(bookId)) return;
  queue.push(bookId);
  set(bookId, { status: 'queued' });
  void runQueue();
}

export function pauseDownload(bookId: string): void {
  const state = jobs.get(bookId);
  const index = queue.indexOf(bookId);
  if (index >= 0) queue.splice(index, 1);
  const at = state?.status === 'downloading' ? state : { done: 0, total: 0 };
  set(bookId, { status: 'paused', done: at.done, total: at.total, reason: 'asked' });
  if (running?.bookId === bookId) running.controller.abort();
}

export async function cancelDownload(bookId: string): Promise<void> {
  const index = queue.indexOf(bookId);
  if (index >= 0) queue.splice(index, 1);
  if (running?.bookId === bookId) running.controller.abort();
  await removeDownload(bookId);
  set(bookId, undefined);
}

/** After a lost connection: the downloads it paused go on, and any left unfinished in an earlier visit. */
export async function resumeInterrupted(): Promise<void> {
  for (const [bookId, state] of jobs) if (state.status === 'paused' && state.reason === 'offline') startDownload(bookId);
  for (const book of await listDownloads()) if (!book.complete && !jobs.has(book.bookId)) startDownload(book.bookId);
}

/** Forgets what this tab knew (a download removed elsewhere, a sign-out). */
export function forgetJob(bookId?: string): void {
  if (bookId === undefined) {
    queue.length = 0;
    running?.controller.abort();
    jobs.clear();
    version += 1;
    for (const listener of listeners) listener();
  } else set(bookId, undefined);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** This tab's state of a book's download; undefined when none was asked here (see `downloadOf` for what is kept). */
export function useJob(bookId: string): JobState | undefined {
  return useSyncExternalStore(subscribe, () => jobs.get(bookId));
}

/** Changes whenever any download moves: screens listing downloads read the kept copies again. */
export function useDownloadsVersion(): number {
  return useSyncExternalStore(subscribe, () => version);
}

export { downloadOf, listDownloads };
