import type { Database } from '../../db/connection.js';
import { UnchangedDatabaseCache } from '../../db/unchanged-cache.js';

/** The `total` of paginated lists: counting a filtered list visits every matching row, so it is remembered. */
export class ListTotals {
  private readonly cache: UnchangedDatabaseCache<number>;

  constructor(database: Database) {
    this.cache = new UnchangedDatabaseCache(database);
  }

  /**
   * The `n` column of a `select count(*) as n ...` query. `key` names the list (everything its rows depend on,
   * not its order or page): the query is built and compiled only when the count is not known.
   */
  count(key: string, query: () => { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }): Promise<number> {
    return this.cache.remember(key, async () => Number((await query().executeTakeFirstOrThrow()).n));
  }
}

/** The key of a list's total: its query without the order and the page. */
export function totalKey(q: { sort?: unknown; offset: number; limit: number }): string {
  return JSON.stringify({ ...q, sort: undefined, offset: undefined, limit: undefined });
}
