import type { Config } from '../../config/schema.js';
import { derivedCacheDir } from '../../data-dir.js';
import type { Database } from '../../db/connection.js';
import type { App } from '../../http/types.js';
import type { IsolatedRenderer } from '../pages/isolated-renderer.js';
import { DerivedCacheBudget, isResizedPage } from '../../media/derived-cache-budget.js';
import { ReaderPool } from '../pages/reader-pool.js';
import { registerPageRoutes } from '../pages/routes.js';
import { PagesService } from '../pages/service.js';
import { ProgressRepository } from '../progress/repository.js';
import { registerProgressRoutes } from '../progress/routes.js';
import { ProgressService } from '../progress/service.js';
import { FullTextSearch } from '../search/fts.js';
import { SeriesRepository } from '../series/repository.js';
import { registerSeriesRoutes } from '../series/routes.js';
import { SeriesService } from '../series/service.js';
import { StatsRepository } from '../stats/repository.js';
import { registerStatsRoutes } from '../stats/routes.js';
import { StatsService } from '../stats/service.js';
import { BooksRepository } from './repository.js';
import { registerBookRoutes } from './routes.js';
import { BooksService } from './service.js';

export interface Browsing {
  series: SeriesService;
  books: BooksService;
  pages: PagesService;
  progress: ProgressService;
  stats: StatsService;
  /** PDF and CBR pages and covers in worker threads (the app's, shared with covers and the library thumbnail). */
  renderer: IsolatedRenderer;
  close(): Promise<void>;
}

/** Wires series, books, pages, progress, search and statistics over one database. */
export function createBrowsing(deps: { database: Database; config: Config; renderer: IsolatedRenderer; thumbnailWidth?: () => number }): Browsing {
  const { database, config } = deps;
  const thumbnailWidth = deps.thumbnailWidth ?? (() => config.thumbnails.width);
  const fts = new FullTextSearch(database.dialect);
  const booksRepo = new BooksRepository(database, fts);
  const readers = new ReaderPool({ maxOpen: config.cache.open_books });
  const { renderer } = deps;
  const cacheDir = derivedCacheDir(config);
  const derivedBudget = new DerivedCacheBudget(cacheDir, config.cache.derived_max_mb * 1024 * 1024, isResizedPage);
  derivedBudget.prepare();
  const pages = new PagesService({ books: booksRepo, readers, renderer, cacheDir, thumbnailWidth, derivedBudget });
  const books = new BooksService(booksRepo, pages);
  const progress = new ProgressService(new ProgressRepository(database), booksRepo);
  const series = new SeriesService({ repo: new SeriesRepository(database, fts), books: booksRepo, booksService: books, pages, progress });
  const stats = new StatsService(new StatsRepository(database));
  return {
    series,
    books,
    pages,
    progress,
    stats,
    renderer,
    close: () => readers.close(),
  };
}

export function registerBrowsingRoutes(app: App, browsing: Browsing): void {
  registerSeriesRoutes(app, browsing.series);
  registerBookRoutes(app, browsing.books);
  registerPageRoutes(app, browsing.pages);
  registerProgressRoutes(app, browsing.progress);
  registerStatsRoutes(app, browsing.stats);
}
