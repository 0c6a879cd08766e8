import type { Database } from '../../db/connection.js';
import { UnchangedDatabaseCache } from '../../db/unchanged-cache.js';

/** Pages of 50 rows are ~30 KB: a few MB kept per list kind. */
const PAGES_KEPT = 128;
/** The API's largest page. Longer listings (every book of a series, for marking it read) are not kept. */
const MAX_ROWS_KEPT = 500;

/**
 * Rows of list pages while the database is unchanged. Finding a page is the costly part of a list: a filter
 * walks the sort order until it has a page of matches, a search ranks every match before the first page is
 * known (~3 ms for 1,300 series). So pages are remembered as totals and On Deck are (UnchangedDatabaseCache:
 * any write anywhere forgets them all). The key is the whole query, the caller, sort and page included, so
 * per-user filters and sorts stay per user. The rows are shared: their users build views and never modify them.
 */
export class ListPages<Row> {
  private readonly cache: UnchangedDatabaseCache<readonly Row[]>;

  constructor(database: Database) {
    this.cache = new UnchangedDatabaseCache(database, PAGES_KEPT);
  }

  rows(query: object, read: () => Promise<readonly Row[]>): Promise<readonly Row[]> {
    return this.cache.remember(JSON.stringify(query), read, (rows) => rows.length <= MAX_ROWS_KEPT);
  }
}
