import { DatabaseOutageReporter } from './db/outage-reporter.js';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from './config/schema.js';
import { sqlitePathFor, type Database } from './db/connection.js';
import { UnchangedDatabaseCache } from './db/unchanged-cache.js';
import { derivedCacheDir } from './data-dir.js';
import { EventBus } from './events/bus.js';
import { API_VERSION } from './http/openapi.js';
import type { RequestMetrics } from './http/request-metrics.js';
import { DerivedCacheBudget, isResizedPage } from './media/rendering/derived-cache-budget.js';
import { resizeImage } from './media/images/images.js';
import { withBook } from './media/formats/open-book.js';
import type { BookFormat } from './media/types.js';
import { KomgaSessions } from './protocols/index.js';
import { AccessService } from './identity/index.js';
import { ApiKeysRepository } from './identity/index.js';
import { ApiKeysService } from './identity/index.js';
import { EmailTokens } from './identity/index.js';
import { EmailTokensRepository } from './identity/index.js';
import { resolveJwtSecret } from './identity/index.js';
import { LoginFailuresRepository } from './identity/index.js';
import { LoginThrottle } from './identity/index.js';
import { createMailer } from './identity/index.js';
import { PasswordChangeService } from './identity/index.js';
import { PasswordChecks } from './identity/index.js';
import { CallerResolver } from './identity/index.js';
import { RevocationsRepository } from './identity/index.js';
import { AuthService } from './identity/index.js';
import { TokenIssuer } from './identity/index.js';
import { BooksRepository, type BookWithLibrary } from './catalog/index.js';
import { BooksService } from './catalog/index.js';
import { CoversRepository } from './catalog/index.js';
import { CoverService } from './catalog/index.js';
import { CustomCoverService } from './catalog/index.js';
import { CustomCoversRepository } from './catalog/index.js';
import { DuplicatesRepository } from './catalog/index.js';
import { DuplicatesService } from './catalog/index.js';
import { FilesystemService } from './libraries/index.js';
import { KosyncRepository } from './protocols/index.js';
import { KosyncService } from './protocols/index.js';
import { KoboRepository } from './protocols/index.js';
import { KoboService } from './protocols/index.js';
import { attachKosyncOnBookEvents } from './protocols/index.js';
import { DevicesRepository } from './reading/index.js';
import { DevicesService } from './reading/index.js';
import { BookResourcesService } from './reading/index.js';
import { LibraryRepository } from './libraries/index.js';
import { LibraryService, type BookCoverReader } from './libraries/index.js';
import { MaintenanceRepository } from './operations/index.js';
import { MaintenanceService } from './operations/index.js';
import { MetricsRepository } from './operations/index.js';
import { MetricsService } from './operations/index.js';
import { StorageHealth } from './operations/index.js';
import { IsolatedRenderer } from './media/analysis/isolated-renderer.js';
import { ReaderPool } from './reading/index.js';
import { PagesService } from './reading/index.js';
import { PreferencesRepository } from './identity/index.js';
import { PreferencesService } from './identity/index.js';
import { ProgressRepository } from './reading/index.js';
import { ProgressService } from './reading/index.js';
import { ScanService } from './libraries/index.js';
import { FullTextSearch } from './catalog/index.js';
import { SeriesRepository } from './catalog/index.js';
import { SeriesService } from './catalog/index.js';
import { MetadataRepository } from './catalog/index.js';
import { MetadataService } from './catalog/index.js';
import { WRITE_BACK_TASK, WriteBackService } from './catalog/index.js';
import { WriteBackRepository } from './catalog/index.js';
import { CoverHistoryLog } from './catalog/index.js';
import { SettingsRepository } from './operations/index.js';
import { SettingsService } from './operations/index.js';
import { SetupService } from './identity/index.js';
import { StatsRepository } from './reading/index.js';
import { StatsService } from './reading/index.js';
import { TaskService } from './operations/index.js';
import { UsersRepository } from './identity/index.js';
import { AccessSummaryRepository } from './identity/index.js';
import { CollectionsService } from './lists/index.js';
import { fillReadListsOnBookEvents } from './lists/index.js';
import { ReadListsService } from './lists/index.js';
import { WantToReadService } from './lists/index.js';
import { UsersService } from './identity/index.js';
import { OidcRepository } from './identity/index.js';
import { ProviderRegistry } from './identity/index.js';
import { OidcService, type OidcAccounts } from './identity/index.js';
import { ProxyUserAccounts } from './identity/index.js';
import type { FileAnalyzer } from './libraries/index.js';
import { createMediaAnalyzer } from './libraries/index.js';
import { ScanRepository } from './libraries/index.js';
import { LibraryScanner } from './libraries/index.js';
import { registerScannerTasks } from './libraries/index.js';
import { TaskQueue } from './tasks/queue.js';
import { Scheduler } from './tasks/scheduler.js';
import { WatchLeaseRepository } from './libraries/index.js';
import { WatchService } from './libraries/index.js';
import { DecisionRepository } from './libraries/index.js';
import { ExplainRepository } from './libraries/index.js';
import { ExplainService } from './libraries/index.js';
import { TaskWorker } from './tasks/worker.js';
import { tightHeapGrowthWhileBusy } from './tasks/heap-growth.js';

/**
 * The composition root: the one place that builds repositories, services, the task queue and the worker's
 * handlers, and wires them to each other. Feature folders never construct each other; `app.ts` takes what is
 * built here and registers routes, feeds and the Komga layer over it.
 *
 * Nothing here runs until `background.start()` (server.ts calls it; tests call it when they need the worker),
 * so building the app for `colophon openapi` starts no thread or timer.
 */

/** Who the caller is and what they may manage about themselves and others. */
export interface Identity {
  resolver: CallerResolver;
  auth: AuthService;
  setup: SetupService;
  users: UsersService;
  apiKeys: ApiKeysService;
  passwordChange: PasswordChangeService;
  /** Sign-in with OpenID Connect providers (config file and Administration). */
  oidc: OidcService;
  oidcProviders: ProviderRegistry;
  /** What the proxy-session route needs of the accounts (the same as OIDC's hand-off). */
  proxySessions: OidcAccounts;
}

/** Libraries, scanning and the task machinery; `start()` starts the background work. */
export interface Background {
  queue: TaskQueue;
  worker: TaskWorker;
  scheduler: Scheduler;
  scanner: LibraryScanner;
  libraries: LibraryService;
  scans: ScanService;
  tasks: TaskService;
  /** Folder watching (scanning_config.watch): targeted scans of changed folders. */
  watching: WatchService;
  /** Starts background work: task worker (recovering abandoned tasks), cron schedules, scan_on_start scans. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What readers browse: series, books, pages, progress and statistics. */
export interface Browsing {
  /** Who sees which book and series: for the features that get rows some other way (events). */
  access: AccessService;
  series: SeriesService;
  books: BooksService;
  pages: PagesService;
  progress: ProgressService;
  stats: StatsService;
  /** Metadata editing: locks, bulk changes, history and undo. */
  metadata: MetadataService;
}

export interface Services {
  events: EventBus;
  settings: SettingsService;
  identity: Identity;
  background: Background;
  browsing: Browsing;
  covers: CoverService;
  /** Covers chosen by a person for a series or a book. */
  customCovers: CustomCoverService;
  duplicates: DuplicatesService;
  /** Why a file is (or is not) a book, and why the book looks as it does. */
  explain: ExplainService;
  collections: CollectionsService;
  readLists: ReadListsService;
  wantToRead: WantToReadService;
  preferences: PreferencesService;
  devices: DevicesService;
  /** An EPUB's files by path and its Readium manifest, for the web reader and OPDS 2 clients. */
  bookResources: BookResourcesService;
  filesystem: FilesystemService;
  storage: StorageHealth;
  metrics: MetricsService;
  maintenance: MaintenanceService;
  komgaSessions: KomgaSessions;
  /** Present when `koreader.enabled`. */
  kosync?: KosyncService;
  /** Kobo e-readers' library sync (protocols/kobo/devices, protocols/kobo); `cacheDir` keeps their fixed-layout EPUBs. */
  kobo: { service: KoboService; cacheDir: string };
  /** Counts what a database outage refuses and logs the outage in a few lines (db/outage-reporter.ts). */
  outage: DatabaseOutageReporter;
  /** Stops the background work and closes every pool, thread and the database, in that order. */
  close(): Promise<void>;
}

export interface CompositionDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  /** Replaces SMTP (tests capture mail with nodemailer's JSON transport). */
  mailTransport?: Transporter;
  /** The HTTP layer's counters and open SSE streams, for the metrics endpoint. */
  requests: RequestMetrics;
  sseConnections: () => number;
  /** Tighter heap growth while background tasks run (the process-wide V8 flag; `colophon serve` only). */
  tuneHeapForTasks?: boolean;
}

export function composeServices(deps: CompositionDeps): Services {
  const { config, database, log } = deps;
  const db = database.db;
  const cacheDir = derivedCacheDir(config);

  const settingsRepo = new SettingsRepository(db);
  const settings = new SettingsService(settingsRepo, config);
  const identity = composeIdentity(deps, settingsRepo, settings);
  const events = new EventBus((err, event) => log.error({ err, event }, 'event listener failed'));
  const outage = new DatabaseOutageReporter({ logger: log, probe: () => database.ping() });
  // PDF and CBR pages and covers, made in worker threads (started on first use), for every feature that shows them.
  const renderer = new IsolatedRenderer();
  const background = composeBackground({
    ...deps,
    bus: events,
    renderer,
    outage,
    taskRetentionDays: () => settings.peek('task_retention_days'),
  });

  const fts = new FullTextSearch(database.dialect);
  const booksRepo = new BooksRepository(database, fts);
  const readers = new ReaderPool({ maxOpen: config.cache.open_books });
  const derivedBudget = new DerivedCacheBudget(cacheDir, config.cache.derived_max_mb * 1024 * 1024, isResizedPage);
  derivedBudget.prepare();
  const thumbnailWidth = () => settings.peek('thumbnail_width');
  const seriesRepo = new SeriesRepository(database, fts);
  // A reader turns pages of the same books: their rows are kept until the database changes (SQLite; a scan or
  // any other write starts afresh), as a copy each time so no caller can alter another's.
  const bookRows = new UnchangedDatabaseCache<Awaited<ReturnType<BooksRepository['get']>>>(database, 4096);
  const bookRow = async (id: string) => {
    const row = await bookRows.remember(
      `book:${id}`,
      () => booksRepo.get(id),
      (found) => found !== undefined,
    );
    return row && { ...row };
  };
  const access = new AccessService({
    book: bookRow,
    series: (id) => seriesRepo.get(id),
    passing: (ids, scope) => seriesRepo.passing(ids, scope),
  });
  const pages = new PagesService({ books: booksRepo, access, readers, renderer, cacheDir, thumbnailWidth, derivedBudget });
  // Covers people chose come before the generated ones, wherever a cover is served.
  const metadataRepo = new MetadataRepository(database);
  const sideHistory = new CoverHistoryLog(metadataRepo);
  const customCovers = new CustomCoverService({
    repo: new CustomCoversRepository(db),
    history: sideHistory,
    access,
    pages,
    bus: events,
    dir: path.join(path.resolve(config.data_dir), 'covers'),
    thumbnailWidth,
    reportMissing: (target, file) =>
      log.warn({ target, file }, 'A chosen cover is missing from the data folder; the cover made from the files is shown instead'),
  });
  const bookCovers = {
    thumbnail: async (book: BookWithLibrary, accept: string | undefined) =>
      (await customCovers.thumbnail({ kind: 'book', id: book.id }, accept)) ?? pages.thumbnail(book, accept),
    chosenCover: (book: BookWithLibrary) => customCovers.full({ kind: 'book', id: book.id }),
  };
  const books = new BooksService(booksRepo, bookCovers, access);
  const progress = new ProgressService(new ProgressRepository(database), booksRepo, access);
  const series = new SeriesService({
    repo: seriesRepo,
    access,
    books: booksRepo,
    booksService: books,
    pages: bookCovers,
    chosenCover: (id, accept) => customCovers.thumbnail({ kind: 'series', id }, accept),
    progress,
    labelsHistory: (id, change) => sideHistory.recordField('sharing_labels', { kind: 'series', id }, change),
  });
  const writeBack = new WriteBackService({
    repo: new WriteBackRepository(database),
    queue: background.queue,
    reanalyze: (libraryId, bookIds, signal) => background.scanner.analyzeBooks(libraryId, bookIds, signal),
  });
  background.worker.register(WRITE_BACK_TASK, (ctx) => writeBack.run(ctx));
  const metadata = new MetadataService({
    repo: metadataRepo,
    covers: customCovers,
    sharingLabels: { restore: (caller, id, labels, group) => series.setSharingLabels(caller, id, labels, group) },
    visible: (caller, rows) => access.visible(caller, rows),
    bus: events,
    writeBack,
  });
  const browsing: Browsing = { access, series, books, pages, progress, stats: new StatsService(new StatsRepository(database)), metadata };

  const listsDeps = { database, access, series, books, bus: events };
  const collections = new CollectionsService(listsDeps);
  const readLists = new ReadListsService(listsDeps);
  // Read-list entries waiting for a book (from a CBL import) take it when a scan adds it.
  fillReadListsOnBookEvents(events, readLists, log);
  const wantToRead = new WantToReadService(listsDeps);
  const duplicates = new DuplicatesService(new DuplicatesRepository(db), background.queue, (caller, rows) => access.visible(caller, rows));
  background.worker.register('detect_duplicates', (ctx) => duplicates.detect(ctx.signal, (update) => ctx.progress(update)));
  const covers = new CoverService({
    repo: new CoversRepository(db),
    queue: background.queue,
    bus: events,
    cacheDir,
    width: thumbnailWidth,
    renderer,
  });
  background.worker.register('generate_thumbnails', (ctx) =>
    covers.generate({ libraryId: ctx.task.library_id ?? undefined, seriesId: ctx.task.target_id ?? undefined }, ctx.signal, (update) =>
      ctx.progress(update),
    ),
  );
  if (config.thumbnails.pregenerate) {
    events.on('scan_completed', (scan) => {
      const changed = scan.books_added + scan.books_updated + scan.books_restored > 0;
      void covers.afterScan(scan.library_id, changed).catch((err: unknown) => log.warn({ err }, 'could not queue cover generation'));
    });
  }

  const storage = new StorageHealth(
    [
      { name: 'data_dir', path: path.resolve(config.data_dir) },
      ...(database.dialect === 'sqlite' && sqlitePathFor(config) !== ':memory:'
        ? [{ name: 'database', path: path.dirname(path.resolve(sqlitePathFor(config))) }]
        : []),
    ],
    config.health.min_free_disk_mb * 1024 * 1024,
  );
  const metrics = new MetricsService({
    repo: new MetricsRepository(database, sqlitePathFor(config)),
    requests: deps.requests,
    version: API_VERSION,
    dialect: database.dialect,
    cacheDir,
    sseConnections: deps.sseConnections,
  });

  const kosync = config.koreader.enabled ? new KosyncService(new KosyncRepository(database), progress) : undefined;
  // A KOReader position sent before its book was cataloged attaches as soon as a scan adds the book.
  if (kosync) attachKosyncOnBookEvents(events, kosync, log);

  return {
    events,
    settings,
    identity,
    background,
    browsing,
    covers,
    customCovers,
    duplicates,
    collections,
    readLists,
    wantToRead,
    preferences: new PreferencesService(new PreferencesRepository(db)),
    devices: new DevicesService(new DevicesRepository(database)),
    bookResources: new BookResourcesService(access, pages, progress),
    filesystem: new FilesystemService(config.libraries.allowed_roots),
    storage,
    metrics,
    maintenance: new MaintenanceService(new MaintenanceRepository(db), cacheDir),
    komgaSessions: new KomgaSessions(() => resolveJwtSecret(config)),
    explain: new ExplainService({
      repo: new ExplainRepository(database),
      access,
      libraries: background.libraries,
      watching: background.watching,
    }),
    kosync,
    kobo: { service: new KoboService(new KoboRepository(database), () => config.kobo.sync_item_limit), cacheDir },
    outage,
    async close() {
      outage.close();
      await background.stop();
      await readers.close();
      metrics.close();
      await renderer.close();
      await database.close();
    },
  };
}

function composeIdentity(deps: CompositionDeps, settingsRepo: SettingsRepository, settings: SettingsService): Identity {
  const { database, config } = deps;
  const db = database.db;
  const usersRepo = new UsersRepository(db);
  const keysRepo = new ApiKeysRepository(db);
  const libraries = new LibraryRepository(database);
  const summaries = new AccessSummaryRepository(db);
  const revocations = new RevocationsRepository(db);
  const tokens = new TokenIssuer(() => resolveJwtSecret(config), config.auth.jwt_expiry_seconds);
  const passwords = new PasswordChecks(usersRepo, new LoginThrottle(new LoginFailuresRepository(db)));
  const auth = new AuthService(
    usersRepo,
    tokens,
    revocations,
    passwords,
    new EmailTokens(new EmailTokensRepository(db)),
    createMailer(config, deps.log, deps.mailTransport),
    settings,
  );
  const oidcRepo = new OidcRepository(db);
  const oidcProviders = new ProviderRegistry(config.auth.oidc.providers, oidcRepo);
  const oidcAccounts = {
    findById: (id: string) => usersRepo.findById(id),
    findByEmail: (email: string) => usersRepo.findByEmail(email),
    conflicts: (username: string, email: string) => usersRepo.conflicts(username, email),
    update: (id: string, changes: Parameters<UsersRepository['update']>[1]) => usersRepo.update(id, changes),
    countAdmins: (exceptId?: string) => usersRepo.countAdmins(exceptId),
    createAccount: auth.createAccount.bind(auth),
    issueFor: auth.issueFor.bind(auth),
    libraries: () => libraries.list(),
  };
  return {
    oidc: new OidcService(oidcProviders, oidcRepo, oidcAccounts),
    oidcProviders,
    resolver: new CallerResolver(
      usersRepo,
      keysRepo,
      revocations,
      tokens,
      passwords,
      new UnchangedDatabaseCache(database),
      config.auth.proxy.enabled
        ? new ProxyUserAccounts(config.auth.proxy, {
            findByUsername: (u) => usersRepo.findByUsername(u),
            createAccount: oidcAccounts.createAccount,
          })
        : undefined,
    ),
    proxySessions: oidcAccounts,
    auth,
    setup: new SetupService(usersRepo, settingsRepo, auth),
    users: new UsersService(
      usersRepo,
      auth,
      async (ids) => new Set(await libraries.existing(ids)),
      (scope) => summaries.summary(scope),
    ),
    apiKeys: new ApiKeysService(keysRepo),
    passwordChange: new PasswordChangeService(usersRepo, passwords),
  };
}

function composeBackground(
  deps: CompositionDeps & {
    bus: EventBus;
    /** PDF and CBR covers (the library thumbnail) are made in its worker threads. */
    renderer: IsolatedRenderer;
    outage: DatabaseOutageReporter;
    /** Finished tasks older than this many days are pruned (admin setting `task_retention_days`). */
    taskRetentionDays: () => number;
  },
): Background {
  const { database, config, bus, log } = deps;
  let pruneTimer: NodeJS.Timeout | undefined;
  const pruneTasks = async () => {
    const days = deps.taskRetentionDays();
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
    onDatabaseUnavailable: (err) => deps.outage.refused(err, 'task'),
    ...(deps.tuneHeapForTasks ? { onBusyChange: tightHeapGrowthWhileBusy } : {}),
  });
  const scheduler = new Scheduler((err, key) => log.error({ err, job: key }, 'scheduled job failed'));
  const scanRepo = new ScanRepository(database);
  let analyzer: FileAnalyzer | undefined;
  const scanner = new LibraryScanner({
    repo: scanRepo,
    bus,
    analyzer: () => (analyzer ??= createMediaAnalyzer({ threads, fileTimeoutSeconds: config.scanner.file_timeout_seconds })),
    existingAnalyzer: () => analyzer,
    analysisConcurrency: threads * 2,
    log,
    decisions: new DecisionRepository(database),
  });
  registerScannerTasks(worker, scanner, scanRepo);

  const libraryRepo = new LibraryRepository(database);
  const scans = new ScanService({ queue, worker, libraries: libraryRepo, scanRepository: scanRepo });
  const readCover: BookCoverReader = async (absolutePath, format, _coverPage) => {
    const size = { width: config.thumbnails.width };
    const cover = deps.renderer.handles(format)
      ? await deps.renderer.cover(absolutePath, format, size)
      : await withBook(
          absolutePath,
          (format ?? undefined) as BookFormat | undefined,
          {},
          async (reader) => (await reader.cover(size)).data,
        );
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
  const tasks = new TaskService(queue, worker, async (id) => (await libraryRepo.get(id))?.path);
  const watching = new WatchService(
    { libraries: libraryRepo, leases: new WatchLeaseRepository(database), scans, bus },
    { checkIntervalMs: config.scanner.watch_check_ms, leaseTtlMs: config.scanner.watch_check_ms * 3, log },
  );

  return {
    queue,
    worker,
    scheduler,
    scanner,
    libraries,
    scans,
    tasks,
    watching,
    async start() {
      await worker.start();
      scheduler.start();
      await libraries.scheduleAll({ startup: true });
      if (config.scanner.watch) await watching.start();
      // Finished tasks accumulate with every scan; prune them at start and then hourly.
      void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed'));
      pruneTimer = setInterval(() => void pruneTasks().catch((err: unknown) => log.warn({ err }, 'task pruning failed')), 3_600_000);
      pruneTimer.unref();
    },
    async stop() {
      await watching.stop();
      clearInterval(pruneTimer);
      scheduler.stop();
      await worker.stop();
      await analyzer?.close();
      analyzer = undefined;
    },
  };
}
