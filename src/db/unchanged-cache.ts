import { sql } from 'kysely';
import type { Database } from './connection.js';

/** Entries kept per database version, unless a cache says otherwise. */
const MAX_ENTRIES = 512;

/**
 * Results of expensive read queries kept until the database changes, on SQLite only. There every query runs on
 * the event loop, and the same answers are asked again and again while clients page or poll (a list's total,
 * On Deck). The version is the connection's `total_changes()` (every row this process inserted, updated or
 * deleted, triggers included) with `PRAGMA data_version` (commits by any other connection or process): any
 * write anywhere starts afresh, so an answer is never stale; the cache only saves work while nothing is
 * written. A result is kept only when no write happened while it was computed. Once the connection is open the
 * version is read through one kept statement (Database.changeVersion), not a query built and compiled anew.
 *
 * On PostgreSQL queries run in the server, off the event loop, and instances share no memory: always computed.
 */
export class UnchangedDatabaseCache<T> {
  private version: string | null = null;
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly database: Database,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  private async currentVersion(): Promise<string> {
    const known = this.database.changeVersion?.();
    if (known !== undefined) return known;
    const { rows } = await sql<{ v: string }>`select total_changes() || ':' || (select data_version from pragma_data_version) as v`.execute(
      this.database.db,
    );
    return String(rows[0]?.v ?? '');
  }

  /**
   * The value kept for `key` while the database is unchanged, read synchronously (the version through the kept
   * statement); undefined when there is none, on PostgreSQL, or before the connection is open. For the hot path of
   * a request that can then skip a promise; `remember` is the way to compute and keep.
   */
  peek(key: string): T | undefined {
    if (this.database.dialect !== 'sqlite' || this.entries.size === 0) return undefined;
    const version = this.database.changeVersion?.();
    if (version === undefined || version !== this.version) return undefined;
    return this.entries.get(key);
  }

  /** The version now, read synchronously; undefined on PostgreSQL or before the connection is open. See `keepSince`. */
  versionNow(): string | undefined {
    return this.database.dialect === 'sqlite' ? this.database.changeVersion?.() : undefined;
  }

  /**
   * Keeps a value computed outside `remember` (over several hooks of a request), when the database has not changed
   * since `since` (from `versionNow` before the computation began).
   */
  keepSince(since: string | undefined, key: string, value: T): void {
    if (since === undefined || this.versionNow() !== since) return;
    if (this.version !== since) {
      this.entries.clear();
      this.version = since;
    }
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  /** `keep`: whether a computed value is worth keeping (a cache of pages skips whole-series listings, say). */
  async remember(key: string, compute: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    if (this.database.dialect !== 'sqlite') return compute();
    const before = await this.currentVersion();
    if (before !== this.version) {
      this.entries.clear();
      this.version = before;
    }
    if (this.entries.has(key)) return this.entries.get(key)!;
    const value = await compute();
    if (keep(value) && (await this.currentVersion()) === before && this.version === before) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, value);
    }
    return value;
  }
}
