/**
 * Catalog: what the libraries hold, as readers browse it: series, books, their metadata, covers, duplicates and search.
 *
 * - series: series lists, details, books, covers, mark read or unread.
 * - books: book lists (plain, filtered, searched), details, covers, downloads, next and previous, On Deck.
 * - metadata: metadata editing: fields and their sources, locks, bulk changes, history and undo, ComicInfo write-back.
 * - covers: covers made ahead of time (`generate_thumbnails`) and covers a person chose.
 * - duplicates: duplicate books (same hash) and series (external id, normalised title), `detect_duplicates`.
 * - identify: metadata from the online databases (decisions 044, 045): the providers (AniList, MangaDex, MangaUpdates,
 *   Open Library, ComicVine, Metron, HTTP providers) behind one interface and one client (time limit, documented
 *   rate, quotas, retries, Retry-After, answers kept a while), their settings with sealed keys, a series'
 *   candidates scored, applied as one history group or sent to the review queue, `identify_library`.
 * - search: the filter and sort language of every list (condition trees compiled to SQL), full-text search,
 *   remembered list pages and totals.
 *
 * The face: what other areas may use of this one.
 */
export { contentDisposition, sendBookFile } from './books/download.js';
export { resolveBookFile } from './books/files.js';
export type { BookFile } from './books/files.js';
export { progressFraction } from './books/progress-fraction.js';
export { BooksRepository } from './books/repository.js';
export type { BookWithLibrary } from './books/repository.js';
export { registerBookRoutes } from './books/routes.js';
export { BookView } from './books/schemas.js';
export { BooksService } from './books/service.js';
export { fileCoverReader } from './covers/file-cover.js';
export type { FileCoverReader } from './covers/file-cover.js';
export { CustomCoversRepository } from './covers/custom-repository.js';
export { CustomCoverService } from './covers/custom.js';
export { CoversRepository } from './covers/repository.js';
export { registerCoverRoutes } from './covers/routes.js';
export { CoverService } from './covers/service.js';
export { DuplicatesRepository } from './duplicates/repository.js';
export { IDENTIFY_TASK } from './identify/service.js';
export { foldTitle } from './identify/names.js';
export { registerDuplicateRoutes } from './duplicates/routes.js';
export { DuplicatesService } from './duplicates/service.js';
export { CoverHistoryLog } from './metadata/cover-history.js';
export { AUTHOR_ROLES, changedFields, withoutLocked } from './metadata/fields.js';
export type { EntityType } from './metadata/fields.js';
export { historyRow, seqStart } from './metadata/history-rows.js';
export { MetadataRepository } from './metadata/repository.js';
export { registerMetadataRoutes } from './metadata/routes.js';
export { BookUpdate, SeriesMetadataChanges } from './metadata/schemas.js';
export { MetadataService } from './metadata/service.js';
export type { MetadataChange } from './metadata/service.js';
export { WriteBackRepository } from './metadata/write-back-repository.js';
export { WRITE_BACK_TASK, WriteBackService } from './metadata/write-back.js';
export { escapeLike } from './search/condition-sql.js';
export { FullTextSearch } from './search/fts.js';
export { seriesNameSource } from './metadata/name-source.js';
export { SeriesRepository } from './series/repository.js';
export { registerSeriesRoutes } from './series/routes.js';
export { SeriesView } from './series/schemas.js';
export type { SeriesFacetField } from './series/schemas.js';
export { SeriesService } from './series/service.js';

import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/connection.js';
import { UnchangedDatabaseCache } from '../db/unchanged-cache.js';
import type { EventBus } from '../events/bus.js';
import type { ComposedArea } from '../http/area.js';
import type { ImageLookup } from '../http/send-image.js';
import { AccessService } from '../identity/index.js';
import type { IsolatedRenderer } from '../media/analysis/isolated-renderer.js';
import type { TaskQueue } from '../tasks/queue.js';
import type { Scheduler } from '../tasks/scheduler.js';
import { API_VERSION } from '../http/openapi.js';
import { SecretBox, secretInFolder } from '../util/secret-box.js';
import { BooksRepository, type BookWithLibrary } from './books/repository.js';
import { registerBookRoutes } from './books/routes.js';
import { BooksService } from './books/service.js';
import { CustomCoversRepository } from './covers/custom-repository.js';
import { CustomCoverService, type CoverPages } from './covers/custom.js';
import { CoversRepository } from './covers/repository.js';
import { registerCoverRoutes } from './covers/routes.js';
import { CoverService } from './covers/service.js';
import { DuplicatesRepository } from './duplicates/repository.js';
import { registerDuplicateRoutes } from './duplicates/routes.js';
import { DuplicatesService } from './duplicates/service.js';
import { CoverHistoryLog } from './metadata/cover-history.js';
import { MetadataRepository } from './metadata/repository.js';
import { registerMetadataRoutes } from './metadata/routes.js';
import { MetadataService } from './metadata/service.js';
import { WriteBackRepository } from './metadata/write-back-repository.js';
import { WRITE_BACK_TASK, WriteBackService } from './metadata/write-back.js';
import { ProvidersService } from './identify/providers-service.js';
import { IdentifyRepository } from './identify/repository.js';
import { ResponseCacheRepository } from './identify/response-cache-repository.js';
import { registerIdentifyRoutes } from './identify/routes.js';
import { DEFAULT_THRESHOLDS } from './identify/score.js';
import { IDENTIFY_TASK, IdentifyService } from './identify/service.js';
import { FullTextSearch } from './search/fts.js';
import { SeriesRepository, type SeriesRow } from './series/repository.js';
import { registerSeriesRoutes } from './series/routes.js';
import { SeriesService, type SeriesProgress } from './series/service.js';

export interface CatalogDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  bus: EventBus;
  queue: TaskQueue;
  renderer: IsolatedRenderer;
  cacheDir: string;
  thumbnailWidth: () => number;
  scheduler: Scheduler;
  /** The setting `metadata_auto_threshold`, read on every decision. */
  autoThreshold: () => number;
  /** Responses sent so far: identification yields to readers while the server is busy. */
  responses?: () => number;
  /**
   * What the catalog shows of reading: a book's pages (covers are drawn from them) and marking a series read. The
   * reading area is composed after the catalog (it reads the catalog's books), so these are asked for on use.
   */
  reading: () => {
    pages: CoverPages & { thumbnail(book: BookWithLibrary, accept: string | undefined): Promise<ImageLookup> };
    progress: SeriesProgress;
  };
  /** Analyses books again after their ComicInfo was written (the libraries area's scanner, composed later). */
  reanalyze: (libraryId: string, bookIds: string[], signal: AbortSignal) => Promise<unknown>;
}

/** The catalog's services; `bookRows` and `seriesRows` are handed to the areas composed on top of it. */
export interface CatalogServices {
  /** Who sees which book and series, by id: every area that fetches rows some other way asks it. */
  access: AccessService<BookWithLibrary, SeriesRow>;
  books: BooksService;
  series: SeriesService;
  metadata: MetadataService;
  covers: CoverService;
  customCovers: CustomCoverService;
  duplicates: DuplicatesService;
  identify: IdentifyService;
  providers: ProvidersService;
  bookRows: BooksRepository;
}

export function compose(deps: CatalogDeps): ComposedArea<CatalogServices> {
  const { config, database, log, bus } = deps;
  const fts = new FullTextSearch(database.dialect);
  const bookRows = new BooksRepository(database, fts);
  const seriesRows = new SeriesRepository(database, fts);
  // A reader turns pages of the same books: their rows are kept until the database changes (SQLite; a scan or
  // any other write starts afresh), as a copy each time so no caller can alter another's.
  const keptBooks = new UnchangedDatabaseCache<Awaited<ReturnType<BooksRepository['get']>>>(database, 4096);
  const bookRow = async (id: string) => {
    const row = await keptBooks.remember(
      `book:${id}`,
      () => bookRows.get(id),
      (found) => found !== undefined,
    );
    return row && { ...row };
  };
  const access = new AccessService({
    book: bookRow,
    series: (id) => seriesRows.get(id),
    passing: (ids, scope) => seriesRows.passing(ids, scope),
  });
  // CoversRepository people chose come before the generated ones, wherever a cover is served.
  const metadataRows = new MetadataRepository(database);
  const sideHistory = new CoverHistoryLog(metadataRows);
  const customCovers = new CustomCoverService({
    repo: new CustomCoversRepository(database.db),
    history: sideHistory,
    access,
    pages: { page: (...args) => deps.reading().pages.page(...args) },
    bus,
    dir: path.join(path.resolve(config.data_dir), 'covers'),
    thumbnailWidth: deps.thumbnailWidth,
    reportMissing: (target, file) =>
      log.warn({ target, file }, 'A chosen cover is missing from the data folder; the cover made from the files is shown instead'),
  });
  const bookCovers = {
    thumbnail: async (book: BookWithLibrary, accept: string | undefined) =>
      (await customCovers.thumbnail({ kind: 'book', id: book.id }, accept)) ?? deps.reading().pages.thumbnail(book, accept),
    chosenCover: (book: BookWithLibrary) => customCovers.full({ kind: 'book', id: book.id }),
  };
  const books = new BooksService(bookRows, bookCovers, access);
  const series = new SeriesService({
    repo: seriesRows,
    access,
    books: bookRows,
    booksService: books,
    covers: bookCovers,
    chosenCover: (id, accept) => customCovers.thumbnail({ kind: 'series', id }, accept),
    progress: { markSeries: (...args) => deps.reading().progress.markSeries(...args) },
    labelsHistory: (id, change) => sideHistory.recordField('sharing_labels', { kind: 'series', id }, change),
  });
  const writeBack = new WriteBackService({ repo: new WriteBackRepository(database), queue: deps.queue, reanalyze: deps.reanalyze });
  const metadata = new MetadataService({
    repo: metadataRows,
    covers: customCovers,
    sharingLabels: { restore: (caller, id, labels, group) => series.setSharingLabels(caller, id, labels, group) },
    visible: (caller, rows) => access.visible(caller, rows),
    bus,
    writeBack,
  });
  const duplicates = new DuplicatesService(new DuplicatesRepository(database.db), deps.queue, (caller, rows) =>
    access.visible(caller, rows),
  );
  const covers = new CoverService({
    repo: new CoversRepository(database.db),
    queue: deps.queue,
    bus,
    cacheDir: deps.cacheDir,
    width: deps.thumbnailWidth,
    renderer: deps.renderer,
  });
  const identifyRows = new IdentifyRepository(database);
  const responses = new ResponseCacheRepository(database);
  // Made on first use: a server that never stores a key (or `colophon openapi`) writes no secret into data_dir.
  let box: SecretBox | undefined;
  const sealed = () => (box ??= new SecretBox(secretInFolder(config.metadata.secret, config.data_dir, 'metadata-secret')));
  const providers = new ProvidersService({
    repo: identifyRows,
    config,
    box: { seal: (plain) => sealed().seal(plain), open: (text) => sealed().open(text) },
    cache: responses,
    // MangaDex asks for a User-Agent naming the application (and refuses a browser's or none).
    userAgent: `Colophon/${API_VERSION} (self-hosted library server)`,
  });
  const identify = new IdentifyService({
    repo: identifyRows,
    providers,
    metadata,
    requireSeries: (caller, id) => access.series(caller, id),
    thresholds: () => ({ ...DEFAULT_THRESHOLDS, auto: deps.autoThreshold() }),
    setCover: (caller, id, image) => customCovers.set(caller, { kind: 'series', id }, { upload: image }),
    queue: deps.queue,
    scheduler: deps.scheduler,
    responses: deps.responses,
    onError: (err, what) => log.warn({ err }, what),
  });
  return {
    services: { access, books, series, metadata, covers, customCovers, duplicates, identify, providers, bookRows },
    wiring: {
      api: [
        (v1) => registerDuplicateRoutes(v1, duplicates),
        (v1) => registerSeriesRoutes(v1, series, metadata),
        (v1) => registerBookRoutes(v1, books, metadata),
        (v1) => registerMetadataRoutes(v1, metadata),
        (v1) => registerCoverRoutes(v1, customCovers),
        (v1) => registerIdentifyRoutes(v1, identify, providers),
      ],
      tasks: {
        [WRITE_BACK_TASK]: (ctx) => writeBack.run(ctx),
        [IDENTIFY_TASK]: (ctx) => identify.runLibrary(ctx),
        detect_duplicates: (ctx) => duplicates.detect(ctx.signal, (update) => ctx.progress(update)),
        generate_thumbnails: (ctx) =>
          covers.generate(
            { libraryId: ctx.task.library_id ?? undefined, seriesId: ctx.task.target_id ?? undefined },
            ctx.signal,
            (update) => ctx.progress(update),
          ),
      },
      listen: (events) => {
        events.on('scan_completed', (scan) => {
          void identify
            .afterScan(scan.library_id, scan.series_created)
            .catch((err: unknown) => log.warn({ err }, 'could not queue identification after the scan'));
        });
        for (const change of ['library_created', 'library_updated', 'library_deleted'] as const)
          events.on(change, (event) => {
            void identify.syncSchedules(event.library_id).catch((err: unknown) => log.warn({ err }, 'could not schedule identification'));
          });
        events.on('scan_completed', (scan) => {
          if (!config.thumbnails.pregenerate) return;
          const changed = scan.books_added + scan.books_updated + scan.books_restored > 0;
          void covers.afterScan(scan.library_id, changed).catch((err: unknown) => log.warn({ err }, 'could not queue cover generation'));
        });
      },
      start: () => identify.syncSchedules(),
    },
  };
}
