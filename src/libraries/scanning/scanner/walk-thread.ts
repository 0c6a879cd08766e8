import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type FoundFile, walkLibrary, type WalkOptions } from './walk.js';

export interface WalkRequest {
  id: number;
  root: string;
}

interface ErrorData {
  message: string;
  code?: string;
}

export type WalkReply =
  | { id: number; type: 'found'; files: FoundFile[] }
  | { id: number; type: 'folderError'; dir: string; error: ErrorData }
  | { id: number; type: 'done' }
  | { id: number; type: 'failed'; error: ErrorData };

interface Listener {
  reply(reply: WalkReply): void;
  lost(err: Error): void;
}

/**
 * An idle walk thread stays this long: scheduled rescans come minutes apart, but several libraries scanned in a
 * row (start-up, "scan all") reuse it, and starting one costs about as much as walking a few thousand files.
 */
const IDLE_MS = 30_000;

function asError(data: ErrorData): Error {
  return Object.assign(new Error(data.message), data.code === undefined ? {} : { code: data.code });
}

/**
 * Compiled code runs `walk-worker.js`. From TypeScript sources (vitest, tsx) a worker's entry is loaded before any
 * `--import tsx` hook applies, so a one-line script registers tsx's require hook and loads the source with it.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./walk-worker.js', here));
  const source = fileURLToPath(new URL('./walk-worker.ts', here));
  const tsx = createRequire(here).resolve('tsx/cjs/api');
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`, { eval: true });
}

/** One worker thread that walks libraries one after the other (see walkLibraryOffThread). */
class WalkThread {
  private readonly worker: Worker;
  private readonly listeners = new Map<number, Listener>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  stopped = false;

  constructor() {
    this.worker = startWorker();
    this.worker.on('message', (reply: WalkReply) => {
      const listener = this.listeners.get(reply.id);
      if (!listener) return; // a cancelled walk's late answers
      if (reply.type === 'done' || reply.type === 'failed') this.finish(reply.id);
      listener.reply(reply);
    });
    this.worker.on('error', (err) => this.lost(err));
    this.worker.on('exit', (code) => this.lost(new Error(`the walk thread exited with code ${code}`)));
  }

  /** Starts walking `root`; returns a function that stops listening (and the thread, when nobody else uses it). */
  walk(root: string, listener: Listener): () => void {
    const id = this.nextId++;
    this.listeners.set(id, listener);
    clearTimeout(this.idleTimer);
    this.worker.ref();
    this.worker.postMessage({ id, root } satisfies WalkRequest);
    return () => {
      if (!this.listeners.has(id)) return;
      this.listeners.delete(id);
      // The thread is blocked in this walk and nobody waits for it: stop it rather than let it finish for nothing.
      if (this.listeners.size === 0) this.stop();
    };
  }

  private finish(id: number): void {
    this.listeners.delete(id);
    if (this.listeners.size > 0) return;
    // Idle: it must not keep the process alive, and it goes away if nothing comes.
    this.worker.unref();
    this.idleTimer = setTimeout(() => this.stop(), IDLE_MS);
    this.idleTimer.unref();
  }

  get idle(): boolean {
    return this.listeners.size === 0;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.idleTimer);
    if (shared === this) shared = undefined;
    void this.worker.terminate();
  }

  private lost(err: Error): void {
    const waiting = [...this.listeners.values()];
    this.listeners.clear();
    this.stop();
    for (const listener of waiting) listener.lost(err);
  }
}

let shared: WalkThread | undefined;

/**
 * `walkLibrary` run in a worker thread with blocking readdir() and stat(): the same files in the same order,
 * without a trip through libuv's thread pool and a callback on the main thread per file. An unchanged rescan is
 * little more than this walk plus loading the library's index from the database, and here the two run in
 * parallel: the main thread is free for the query (and for HTTP requests) while the worker walks. Should the
 * thread fail to start, the walk runs here instead.
 */
export async function* walkLibraryOffThread(
  root: string,
  options: Pick<WalkOptions, 'signal' | 'onError'> = {},
): AsyncGenerator<FoundFile[]> {
  const { signal, onError } = options;
  signal?.throwIfAborted();
  const batches: FoundFile[][] = [];
  let finished = false;
  let failure: Error | undefined;
  /** The thread died or could not start before answering: the walk is done on this thread instead. */
  let fallBack = false;
  let answered = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  let thread: WalkThread;
  try {
    thread = shared ??= new WalkThread();
  } catch {
    yield* walkLibrary(root, { signal, onError, concurrency: 64 });
    return;
  }
  const stopListening = thread.walk(root, {
    reply(reply) {
      answered = true;
      if (reply.type === 'found') batches.push(reply.files);
      else if (reply.type === 'folderError') onError?.(reply.dir, asError(reply.error));
      else {
        finished = true;
        if (reply.type === 'failed') failure = asError(reply.error);
      }
      notify();
    },
    lost(err) {
      finished = true;
      failure = err;
      fallBack = !answered;
      notify();
    },
  });
  signal?.addEventListener('abort', notify, { once: true });
  try {
    for (let next = 0; ;) {
      signal?.throwIfAborted();
      if (next < batches.length) {
        const files = batches[next]!;
        batches[next++] = [];
        yield files;
      } else if (finished) {
        if (fallBack) {
          yield* walkLibrary(root, { signal, onError, concurrency: 64 });
          return;
        }
        if (failure) throw failure;
        return;
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  } finally {
    signal?.removeEventListener('abort', notify);
    stopListening();
  }
}

/**
 * Stops the walk thread now if no walk is using it: its memory (about 10 MB) goes back before a scan's analysis
 * starts the media workers, instead of at the end of the idle time.
 */
export function releaseWalkThread(): void {
  if (shared?.idle) shared.stop();
}

/** Whether a walk thread is running (idle or walking): after a walk, false means it ran on the main thread. */
export function walkThreadRunning(): boolean {
  return shared !== undefined && !shared.stopped;
}
