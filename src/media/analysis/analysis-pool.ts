import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { AnalyzeOptions, FileStat } from './analyze.js';
import type { CatalogAnalysis } from './catalog-analysis.js';
import type { AnalyzeManyTask, AnalyzeTask, CoverTask, HashTask, PageTask, WorkerResult } from './analysis-protocol.js';
import { MediaError, errorMessage, isAbortError } from '../errors.js';
import type { MediaLimits } from '../limits.js';
import type { RenderPageOptions } from '../rendering/render-page.js';
import type { BookAnalysis, BookFormat, CoverRef, PageData } from '../types.js';

export interface AnalysisPoolOptions {
  /** Worker threads; default the CPU count. */
  threads?: number;
  /** Heap limit of each worker; a file that needs more kills only its worker. */
  maxOldGenerationSizeMb?: number;
  maxYoungGenerationSizeMb?: number;
  /** Per-file time limit for analysis, hashing and rendering. */
  timeoutMs?: number;
  /** Limits for every task unless a task brings its own. */
  limits?: Partial<MediaLimits>;
  /** Idle workers exit after this long (their memory goes back to the system). */
  idleTimeoutMs?: number;
}

export const DEFAULT_POOL_TIMEOUT_MS = 120_000;
export const DEFAULT_WORKER_HEAP_MB = 512;
/**
 * Young generation of each worker. Left to V8 it is sized from the heap limit (tens of MB per worker), and
 * analysis allocates fast enough to fill it; 8 MB costs a few more scavenges and measured about 30 MB less
 * RSS for two workers over a 10,000-book scan.
 */
export const DEFAULT_WORKER_YOUNG_MB = 8;

/**
 * Compiled code runs `analysis-worker.js`; under vitest or tsx this file is TypeScript, so the worker is too
 * and needs tsx's loader in its own thread.
 */
function workerEntry(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  const typescript = here.endsWith('.ts');
  const url = new URL(typescript ? './analysis-worker.ts' : './analysis-worker.js', here);
  return { filename: fileURLToPath(url), execArgv: typescript ? ['--import', 'tsx'] : [] };
}

/** A book's failed analysis as a value; cancellation still rejects. */
function settledError(err: unknown): MediaError {
  if (err instanceof MediaError && err.kind !== 'aborted') return err;
  throw err;
}

/** Structured cloning turns Buffers into plain Uint8Arrays. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The tasks' controllers that follow each caller's signal: one 'abort' listener per signal, however many tasks
 * it has in flight (a scan's signal would otherwise collect one listener per task and warn past ten).
 */
const followersBySignal = new WeakMap<AbortSignal, Set<AbortController>>();

function followersOf(signal: AbortSignal): Set<AbortController> {
  let followers = followersBySignal.get(signal);
  if (!followers) {
    const set = new Set<AbortController>();
    followers = set;
    followersBySignal.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const controller of set) controller.abort(signal.reason);
      },
      { once: true },
    );
  }
  return followers;
}

export interface TaskOptions {
  signal?: AbortSignal;
  /** Overrides the pool's timeout for this task. */
  timeoutMs?: number;
}

/**
 * Worker threads for everything that parses untrusted files: analysis (pages, metadata, hash, cover), page
 * rendering (PDF, CBR) and hashing. A task that loops is cut at its timeout and one that blows its heap dies
 * alone; piscina replaces the worker and the caller gets a MediaError saying why.
 */
export class AnalysisPool {
  private pool: Promise<Piscina> | undefined;
  private readonly createPool: () => Promise<Piscina>;
  /** Worker threads running now (none before the first task). */
  private liveThreads = (): number => 0;
  private readonly timeoutMs: number;
  private readonly limits: Partial<MediaLimits> | undefined;
  private readonly heapMb: number;

  constructor(options: AnalysisPoolOptions = {}) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    this.timeoutMs = options.timeoutMs ?? DEFAULT_POOL_TIMEOUT_MS;
    this.limits = options.limits;
    this.heapMb = options.maxOldGenerationSizeMb ?? DEFAULT_WORKER_HEAP_MB;
    const idleTimeout = options.idleTimeoutMs ?? 30_000;
    const resourceLimits = {
      maxOldGenerationSizeMb: this.heapMb,
      maxYoungGenerationSizeMb: options.maxYoungGenerationSizeMb ?? DEFAULT_WORKER_YOUNG_MB,
    };
    this.createPool = async () => {
      const { Piscina: PiscinaPool } = await import('piscina');
      const { filename, execArgv } = workerEntry();
      const pool = new PiscinaPool({ filename, execArgv, minThreads: 0, maxThreads: threads, idleTimeout, resourceLimits });
      // piscina emits 'error' when a worker answers a task that was aborted meanwhile (a cancelled scan races its
      // workers' last results). Nobody waits for that answer any more; unheard, the emit would throw and take the
      // whole process down.
      pool.on('error', () => undefined);
      this.liveThreads = () => pool.threads.length;
      return pool;
    };
  }

  /** piscina is loaded with the first task, not at start (a server that analyses nothing needs no worker code). */
  private loadPool(): Promise<Piscina> {
    this.pool ??= this.createPool().catch((err: unknown) => {
      this.pool = undefined;
      throw err;
    });
    return this.pool;
  }

  get threads(): number {
    return this.liveThreads();
  }

  private async run<T>(name: string, task: object, path: string, options: TaskOptions): Promise<T> {
    // One controller and one timer per task, both dropped when it settles. (AbortSignal.timeout + any() leave a
    // two-minute timer and a dependent signal behind per task: at thousands of books per scan that is garbage
    // the main thread's heap grows on.)
    const limitMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new MediaError('timeout', `${path}: gave up after ${limitMs} ms`));
    }, limitMs);
    const parent = options.signal;
    const followers = parent ? followersOf(parent) : undefined;
    followers?.add(controller);
    if (parent?.aborted) controller.abort(parent.reason);
    let result: WorkerResult<T>;
    try {
      const pool = await this.loadPool();
      result = (await pool.run(task, { name, signal: controller.signal })) as WorkerResult<T>;
    } catch (err) {
      if (parent?.aborted) throw new MediaError('aborted', `${path}: cancelled`, { cause: err });
      if (timedOut || isAbortError(err)) {
        throw new MediaError('timeout', `${path}: gave up after ${limitMs} ms`, { cause: err });
      }
      const code = (err as { code?: unknown }).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new MediaError('too_large', `${path}: ran out of memory (worker heap limit ${this.heapMb} MB)`, { cause: err });
      }
      throw new MediaError('worker_crashed', `${path}: the worker died (${errorMessage(err)})`, { cause: err });
    } finally {
      clearTimeout(timer);
      followers?.delete(controller);
    }
    if (!result.ok) throw new MediaError(result.kind, result.message);
    return result.value;
  }

  async analyze(path: string, options: Omit<AnalyzeOptions, 'signal'> & TaskOptions = {}): Promise<BookAnalysis> {
    const { signal, timeoutMs, ...analyzeOptions } = options;
    const task: AnalyzeTask = { path, options: { ...analyzeOptions, limits: analyzeOptions.limits ?? this.limits } };
    const analysis = await this.run<BookAnalysis>('analyze', task, path, { signal, timeoutMs });
    if (analysis.coverImage) analysis.coverImage.data = asBuffer(analysis.coverImage.data);
    return analysis;
  }

  /**
   * The same analysis, returned with its page list and metadata already serialised to JSON (what the scanner
   * stores): less to clone between threads and nothing to re-serialise on the main thread. No cover image.
   */
  analyzeForCatalog(path: string, options: Omit<AnalyzeOptions, 'signal' | 'withCover'> & TaskOptions = {}): Promise<CatalogAnalysis> {
    const { signal, timeoutMs, ...analyzeOptions } = options;
    const task: AnalyzeTask = { path, options: { ...analyzeOptions, limits: analyzeOptions.limits ?? this.limits } };
    return this.run<CatalogAnalysis>('analyzeForCatalog', task, path, { signal, timeoutMs });
  }

  /**
   * `analyzeForCatalog` of several books in one task: each task costs the main thread a message each way and
   * wakes a sleeping worker, which for small books is a good part of their cost (four 1 MB books a task
   * measured ~7% less CPU than one a task). Each book settles on its own: an analysis error
   * comes back as that book's MediaError. Should the task as a whole fail (the time limit, which applies to the
   * whole task, or a worker killed by one hostile file), every book is analysed again in a task of its own, so
   * that only the guilty one fails. Cancellation rejects.
   */
  async analyzeManyForCatalog(
    paths: readonly string[],
    options: Omit<AnalyzeOptions, 'signal' | 'withCover' | 'stat'> & TaskOptions & { stats?: readonly FileStat[] } = {},
  ): Promise<Array<CatalogAnalysis | MediaError>> {
    const { stats, ...common } = options;
    const one = (i: number) => this.analyzeForCatalog(paths[i]!, stats?.[i] ? { ...common, stat: stats[i] } : common).catch(settledError);
    if (paths.length === 1) return [await one(0)];
    const { signal, timeoutMs, ...analyzeOptions } = common;
    const task: AnalyzeManyTask = {
      paths: [...paths],
      ...(stats ? { stats: stats.map(({ size, mtimeMs }) => ({ size, mtimeMs })) } : {}),
      options: { ...analyzeOptions, limits: analyzeOptions.limits ?? this.limits },
    };
    let results: WorkerResult<CatalogAnalysis>[];
    try {
      results = await this.run<WorkerResult<CatalogAnalysis>[]>('analyzeManyForCatalog', task, `${paths[0]} and ${paths.length - 1} more`, {
        signal,
        timeoutMs,
      });
    } catch (err) {
      if (signal?.aborted || (err instanceof MediaError && err.kind === 'aborted')) throw err;
      return Promise.all(paths.map((_, i) => one(i)));
    }
    return results.map((result) => (result.ok ? result.value : new MediaError(result.kind, result.message)));
  }

  async renderPage(
    path: string,
    format: BookFormat | undefined,
    pageNumber: number,
    render: Omit<RenderPageOptions, 'signal'> & { knownPages?: string[] } & TaskOptions = {},
  ): Promise<PageData> {
    const { signal, timeoutMs, knownPages, ...rest } = render;
    const task: PageTask = { path, format, pageNumber, knownPages, limits: this.limits, render: rest };
    const page = await this.run<PageData>('page', task, path, { signal, timeoutMs });
    return { data: asBuffer(page.data), mediaType: page.mediaType };
  }

  async cover(
    path: string,
    format?: BookFormat,
    options: { width?: number; height?: number } & TaskOptions = {},
  ): Promise<PageData & CoverRef> {
    const { signal, timeoutMs, ...size } = options;
    const task: CoverTask = { path, format, limits: this.limits, ...size };
    const cover = await this.run<PageData & CoverRef>('cover', task, path, { signal, timeoutMs });
    return { ...cover, data: asBuffer(cover.data) };
  }

  hash(path: string, options: TaskOptions = {}): Promise<string> {
    const task: HashTask = { path };
    return this.run<string>('hash', task, path, options);
  }

  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.liveThreads = () => 0;
    await (await pool?.catch(() => undefined))?.destroy();
  }
}
