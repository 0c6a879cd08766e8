/**
 * Libraries: the folders a household points Colophon at, and everything that turns files into a catalog.
 *
 * - (root): libraries themselves: path rules, scanning configuration and schedules, deletion and purge, the library
 *   thumbnail.
 * - scanning: scan control (start one per library, status, cancel, re-analysis) and, in `scanning/scanner/`, the
 *   scan itself: walk, compare with the catalog, analyse changed files, write series and books.
 * - watching: folder watching (`scanning_config.watch`): targeted scans of the folders that changed.
 * - explain: why a file is, or is not, a book, and why the book looks as it does.
 * - filesystem: folder browsing for an administrator choosing a library path, within `libraries.allowed_roots`.
 * - inbox: folders whose new files (dropped there or uploaded) are identified, named by a template, reviewed and
 *   filed into a library.
 *
 * The face: what other areas may use of this one.
 */
export { ExplainRepository } from './explain/repository.js';
export { registerExplainRoutes } from './explain/routes.js';
export { ExplainService } from './explain/service.js';
export { registerFilesystemRoutes } from './filesystem/routes.js';
export { FilesystemService } from './filesystem/service.js';
export { LibraryRepository } from './repository.js';
export { registerLibraryRoutes } from './routes.js';
export { registerScanRoutes } from './scanning/routes.js';
export type { FileAnalyzer } from './scanning/scanner/analyzer.js';
export { DecisionRepository } from './scanning/scanner/decisions.js';
export { createMediaAnalyzer } from './scanning/scanner/media-analyzer.js';
export { ScanRepository } from './scanning/scanner/repository.js';
export { LibraryScanner } from './scanning/scanner/scanner.js';
export { ScanService } from './scanning/service.js';
export { importsLists } from './schemas.js';
export type { LibraryResponse, LibraryView } from './schemas.js';
export { LibraryService } from './service.js';
export { libraryFor } from './views.js';
export { WatchLeaseRepository } from './watching/repository.js';
export { registerWatchRoutes } from './watching/routes.js';
export { WatchService } from './watching/service.js';
export { InboxService } from './inbox/service.js';

import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { AccessService } from '../identity/index.js';
import { fileCoverReader } from '../catalog/index.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/connection.js';
import type { EventBus } from '../events/bus.js';
import type { ComposedArea } from '../http/area.js';
import type { IsolatedRenderer } from '../media/analysis/isolated-renderer.js';
import type { TaskQueue } from '../tasks/queue.js';
import type { Scheduler } from '../tasks/scheduler.js';
import type { TaskWorker } from '../tasks/worker.js';
import { ExplainRepository } from './explain/repository.js';
import { InboxRepository } from './inbox/repository.js';
import { registerInboxRoutes, registerUploadRoutes } from './inbox/routes.js';
import { InboxService } from './inbox/service.js';
import { InboxUploads } from './inbox/uploads.js';
import { registerExplainRoutes } from './explain/routes.js';
import { ExplainService } from './explain/service.js';
import { registerFilesystemRoutes } from './filesystem/routes.js';
import { FilesystemService } from './filesystem/service.js';
import { LibraryRepository, type LibraryRow } from './repository.js';
import { registerLibraryRoutes } from './routes.js';
import { registerScanRoutes } from './scanning/routes.js';
import type { FileAnalyzer } from './scanning/scanner/analyzer.js';
import { DecisionRepository } from './scanning/scanner/decisions.js';
import { createMediaAnalyzer } from './scanning/scanner/media-analyzer.js';
import { ScanRepository } from './scanning/scanner/repository.js';
import { LibraryScanner } from './scanning/scanner/scanner.js';
import { scannerTasks } from './scanning/scanner/tasks.js';
import { ScanService } from './scanning/service.js';
import { LibraryService } from './service.js';
import { registerWatchRoutes } from './watching/routes.js';
import { WatchLeaseRepository } from './watching/repository.js';
import { WatchService } from './watching/service.js';

export interface LibrariesDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  bus: EventBus;
  queue: TaskQueue;
  worker: TaskWorker;
  scheduler: Scheduler;
  /** PDF and CBR covers (the library thumbnail) are made in its worker threads. */
  renderer: IsolatedRenderer;
  /** The catalog's access rules (the explainer answers only about books the caller sees). */
  access: AccessService;
  /** The identification's automatic threshold: the inbox files without review at or above it. */
  autoThreshold: () => number;
  /** The setting `inbox_upload_max_mb`, in bytes. */
  uploadMaxBytes: () => number;
  /** Online identification's candidates for a title (the inbox matches a file to a series identified as that work). */
  identifyOnline: (
    title: string,
    year: number | null,
  ) => Promise<Array<{ provider: string; external_id: string; title: string; score: number }>>;
  /** Readers' progress of a book, given to another (a book moved in through the inbox from another library). */
  carryProgress: (fromBookId: string, toBookId: string) => Promise<void>;
}

/** What other areas read of the library table, without its repository: names, ids, folders. */
export interface LibraryDirectory {
  list(): Promise<LibraryRow[]>;
  /** Of these ids, those of libraries that exist. */
  existing(ids: readonly string[]): Promise<string[]>;
  /** A library's folder (task answers are made relative to it for readers). */
  root(id: string): Promise<string | undefined>;
}

export interface LibrariesServices {
  libraries: LibraryService;
  scans: ScanService;
  scanner: LibraryScanner;
  /** Folder watching (scanning_config.watch): targeted scans of changed folders. */
  watching: WatchService;
  /** Why a file is (or is not) a book, and why the book looks as it does. */
  explain: ExplainService;
  /** New books through inbox folders and uploads. */
  inbox: InboxService;
  directory: LibraryDirectory;
}

export function compose(deps: LibrariesDeps): ComposedArea<LibrariesServices> {
  const { database, config, bus, log, queue, worker } = deps;
  const threads = config.scanner.workers || os.availableParallelism();
  const scanRepo = new ScanRepository(database);
  let analyzer: FileAnalyzer | undefined;
  let inboxAnalyzer: FileAnalyzer | undefined;
  const scanner = new LibraryScanner({
    repo: scanRepo,
    bus,
    analyzer: () => (analyzer ??= createMediaAnalyzer({ threads, fileTimeoutSeconds: config.scanner.file_timeout_seconds })),
    existingAnalyzer: () => analyzer,
    analysisConcurrency: threads * 2,
    log,
    decisions: new DecisionRepository(database),
  });
  const libraryRepo = new LibraryRepository(database);
  const scans = new ScanService({ queue, worker, libraries: libraryRepo, scanRepository: scanRepo });
  const libraries = new LibraryService({
    repo: libraryRepo,
    bus,
    scheduler: deps.scheduler,
    scans,
    readCover: fileCoverReader(config, deps.renderer),
    onError: (err, message) => log.warn({ err }, message),
    allowedRoots: config.libraries.allowed_roots,
  });
  const watching = new WatchService(
    { libraries: libraryRepo, leases: new WatchLeaseRepository(database), scans, bus },
    { checkIntervalMs: config.scanner.watch_check_ms, leaseTtlMs: config.scanner.watch_check_ms * 3, log },
  );
  const explain = new ExplainService({ repo: new ExplainRepository(database), access: deps.access, libraries, watching });
  const filesystem = new FilesystemService(config.libraries.allowed_roots);
  const inbox = new InboxService({
    repo: new InboxRepository(database),
    libraries: libraryRepo,
    access: deps.access,
    // Its own single thread: a scan's end lets the scanner's threads go at once, and would cut an inbox file short.
    analyzer: () => (inboxAnalyzer ??= createMediaAnalyzer({ threads: 1, fileTimeoutSeconds: config.scanner.file_timeout_seconds })),
    scans,
    bus,
    autoThreshold: deps.autoThreshold,
    carryProgress: deps.carryProgress,
    identifyOnline: deps.identifyOnline,
    allowedRoots: config.libraries.allowed_roots,
    log,
    quietMs: config.inbox.quiet_seconds * 1000,
    checkMs: config.inbox.check_seconds * 1000,
  });
  const uploads = new InboxUploads({
    inbox,
    directory: config.inbox.uploads_dir || path.join(config.data_dir, 'uploads'),
    maxBytes: deps.uploadMaxBytes,
    log,
  });
  const directory: LibraryDirectory = {
    list: () => libraryRepo.list(),
    existing: (ids) => libraryRepo.existing(ids),
    root: async (id) => (await libraryRepo.get(id))?.path,
  };
  return {
    services: { libraries, scans, scanner, watching, explain, inbox, directory },
    wiring: {
      api: [
        (v1) => registerLibraryRoutes(v1, libraries),
        (v1) => registerScanRoutes(v1, scans),
        (v1) => registerWatchRoutes(v1, { watching, libraries }),
        (v1) => registerExplainRoutes(v1, explain),
        (v1) => registerFilesystemRoutes(v1, filesystem),
        (v1) => registerInboxRoutes(v1, inbox),
        (v1) => v1.register(async (scope) => registerUploadRoutes(scope, uploads)),
      ],
      listen: (events) => {
        events.on('scan_completed', (scan) => {
          void inbox.afterScan(scan.library_id).catch((err: unknown) => log.warn({ err }, 'inbox: filed books not looked for'));
        });
      },
      tasks: {
        ...scannerTasks(scanner, scanRepo),
        purge_deleted: async (ctx) => {
          if (!ctx.task.library_id) throw new Error('purge_deleted task without library_id');
          return libraries.purgeDeleted(ctx.task.library_id);
        },
      },
      async start() {
        await libraries.scheduleAll({ startup: true });
        if (config.scanner.watch) await watching.start();
        await uploads.start();
        await inbox.start();
      },
      async stop() {
        uploads.stop();
        await inbox.stop();
        await watching.stop();
      },
      async release() {
        await Promise.all([analyzer?.close(), inboxAnalyzer?.close()]);
        analyzer = undefined;
        inboxAnalyzer = undefined;
      },
    },
  };
}
