import { sql, type Compilable } from 'kysely';
import type { Database } from '../../db/connection.js';

/** Distinct list totals kept per database version (a page of a list is one query; its total is another). */
const MAX_TOTALS = 512;

/**
 * The `total` of paginated lists without recounting on every page. Counting a filtered list visits every
 * matching row, and on SQLite that work runs on the event loop; the same count is asked again and again while
 * a client pages or polls. So on SQLite a total is kept until the database changes: the version is the
 * connection's `total_changes()` (every row this process inserted, updated or deleted, triggers included)
 * with `PRAGMA data_version` (commits by any other connection or process). Any write anywhere starts afresh,
 * so a total is never stale; it only saves work while nothing is written.
 *
 * On PostgreSQL the count runs in the server, off the event loop, and instances share no memory: it always counts.
 */
export class ListTotals {
  private version: string | null = null;
  private readonly totals = new Map<string, number>();

  constructor(private readonly database: Database) {}

  private async currentVersion(): Promise<string> {
    const { rows } = await sql<{ v: string }>`select total_changes() || ':' || (select data_version from pragma_data_version) as v`.execute(this.database.db);
    return String(rows[0]?.v ?? '');
  }

  /** The `n` column of a `select count(*) as n ...` query. */
  async count(query: Compilable<{ n: number | string | bigint }> & { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }): Promise<number> {
    if (this.database.dialect !== 'sqlite') return Number((await query.executeTakeFirstOrThrow()).n);
    const compiled = query.compile();
    const key = `${compiled.sql}\0${JSON.stringify(compiled.parameters)}`;
    const before = await this.currentVersion();
    if (before !== this.version) {
      this.totals.clear();
      this.version = before;
    }
    const known = this.totals.get(key);
    if (known !== undefined) return known;
    const n = Number((await query.executeTakeFirstOrThrow()).n);
    // Kept only when nothing was written while counting (another request may have run in between).
    if ((await this.currentVersion()) === before && this.version === before) {
      if (this.totals.size >= MAX_TOTALS) this.totals.delete(this.totals.keys().next().value!);
      this.totals.set(key, n);
    }
    return n;
  }
}
