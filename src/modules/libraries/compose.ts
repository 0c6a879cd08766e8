import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/schema.js';
import type { Database } from '../../db/connection.js';
import type { EventBus } from '../../events/bus.js';
import { resizeImage } from '../../media/images.js';
import { withBook } from '../../media/open-book.js';
import type { BookFormat } from '../../media/types.js';
import type { FileAnalyzer } from '../../scanner/analyzer.js';
import type { IsolatedRenderer } from '../pages/isolated-renderer.js';
import { createMediaAnalyzer } from '../../scanner/media-analyzer.js';
import { ScanRepository } from '../../scanner/repository.js';
import { LibraryScanner } from '../../scanner/scanner.js';
import { registerScannerTasks } from '../../scanner/tasks.js';
import { TaskQueue } from '../../tasks/queue.js';
import { Scheduler } from '../../tasks/scheduler.js';
import { TaskWorker } from '../../tasks/worker.js';
import { ScanService } from '../scans/service.js';
import { TaskService } from '../tasks/service.js';
import { LibraryRepository } from './repository.js';
import { LibraryService, type BookCoverReader } from './service.js';

export interface Catalog {
  queue: TaskQueue;
  worker: TaskWorker;
  scheduler: Scheduler;
  scanner: LibraryScanner;
  libraries: LibraryService;
  scans: ScanService;
  tasks: TaskService;
  /** Starts background work: task worker (recovering abandoned tasks), cron schedules, scan_on_start scans. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Wires libraries, scanning and tasks together. Nothing runs until `start()` (server.ts calls it; tests call it
 * when they need the worker), so building the app for `bindery openapi` starts no thread or timer.
 */
export function createCatalog(deps: {
  database: Database;
  config: Config;
  bus: EventBus;
  log: FastifyBaseLogger;
  /** Finished tasks older than this many days are pruned (admin setting `task_retention_days`). */
  taskRetentionDays?: () => number;
  /** PDF and CBR covers (the library thumbnail) are made in its worker threads. */
  renderer: IsolatedRenderer;
}): Catalog {
  const { database, config, bus, log } = deps;
  let pruneTimer: NodeJS.Timeout | undefined;
  const pruneTasks = async () => {
    const days = deps.taskRetentionDays?.() ?? 30;
    const removed = await queue.pruneFinished(new Date(Date.now() - days * 86_400_000).toISOString());
    if (removed > 0) log.info({ removed, days }, 'pruned finished tasks');
  };
  const threads = config.scanner.workers || os.availableParallelism();
  const queue = new TaskQueue(database);
  const worker = new TaskWorker(queue, bus, {
    concurrency: config.tasks.concurrency,
    pollIntervalMs: config.tasks.poll_interval_ms,
    // SQLite belongs to this one process: whatever is `running` at start was left by a dead process.
    recoverAllOnStart: database.dialect === 'sqlite',
    logger: log,
  });
  const scheduler = new Scheduler((err, key) => log.error({ err, job: key }, 'scheduled job failed'));
  const scanRepo = new ScanRepository(database);
  let analyzer: FileAnalyzer | undefined;
  const scanner = new LibraryScanner({
    repo: scanRepo,
    bus,
    analyzer: () => (analyzer ??= createMediaAnalyzer({ threads, fileTimeoutSeconds: config.scanner.file_timeout_seconds })),
    analysisConcurrency: threads * 2,
    log,
  });
  registerScannerTasks(worker, scanner, scanRepo);

  const libraryRepo = new LibraryRepository(database);
  const scans = new ScanService({ queue, worker, libraries: libraryRepo, catalog: scanRepo });
  const readCover: BookCoverReader = async (absolutePath, format, _coverPage) => {
    const size = { width: config.thumbnails.width };
    const cover = deps.renderer.handles(format)
      ? await deps.renderer.cover(absolutePath, format, size)
      : await withBook(absolutePath, (format ?? undefined) as BookFormat | undefined, {}, async (reader) => (await reader.cover(size)).data);
    return resizeImage(cover, { width: config.thumbnails.width, format: config.thumbnails.format });
  };
  const libraries = new LibraryService({
    repo: libraryRepo,
    bus,
    scheduler,
    scans,
    readCover,
    onError: (err, message) => log.warn({ err }, message),
    allowedRoots: config.libraries.allowed_roots,
  });
  worker.register('purge_deleted', async (ctx) => {
    if (!ctx.task.library_id) throw new Error('purge_deleted task without library_id');
    return libraries.purgeDeleted(ctx.task.library_id);
  });
  const tasks = new TaskService(queue, worker);

  return {
    queue,
    worker,
    scheduler,
    scanner,
    libraries,
    scans,
    tasks,
    async start() {
      await worker.start();
      scheduler.start();
      await libraries.scheduleAll({ startup: true });
      // Finished tasks accumulate with every scan; prune them at start and then hourly.
      void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed'));
      pruneTimer = setInterval(() => void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed')), 3_600_000);
      pruneTimer.unref();
    },
    async stop() {
      clearInterval(pruneTimer);
      scheduler.stop();
      await worker.stop();
      await analyzer?.close();
      analyzer = undefined;
    },
  };
}
