import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from '../../db/connection.js';
import { migrateTo, migrateToLatestIn, migrationNames } from '../../db/migrate.js';

export type Db = Kysely<unknown> | Transaction<unknown>;

/**
 * Tables a backup leaves out: what is rebuilt from the rest (the search indexes and SQLite's per-series read counts,
 * filled by triggers as rows come back; the online databases' kept answers) and the migration bookkeeping (the manifest names the schema).
 */
const DERIVED =
  /^(search_docs|series_fts.*|books_fts.*|series_search|books_search|series_read_counts|metadata_responses|colophon_migrations.*|sqlite_.*)$/;

/** Rows read or written at a time. */
export const BATCH = 2000;

/** The whole database as portable rows: which tables, in which order, and their rows (issue 52). */
export class BackupRepository {
  constructor(private readonly database: Database) {}

  get dialect(): Dialect {
    return this.database.dialect;
  }

  /** Runs `read` in one consistent snapshot (a read transaction; repeatable read on PostgreSQL). */
  snapshot<T>(read: (db: Db) => Promise<T>): Promise<T> {
    const db = this.database.db as unknown as Kysely<unknown>;
    if (this.database.dialect === 'postgres') return db.transaction().setIsolationLevel('repeatable read').execute(read);
    return db.transaction().execute(read);
  }

  /** Every table that holds what cannot be rebuilt, parents before the tables referring to them. */
  async tables(db: Db = this.db): Promise<string[]> {
    const names =
      this.dialect === 'sqlite'
        ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(db)).rows.map(
            (r) => r.name,
          )
        : (
            await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db)
          ).rows.map((r) => r.name);
    const portable = names.filter((n) => !DERIVED.test(n));
    const parents = new Map<string, Set<string>>();
    for (const table of portable) parents.set(table, new Set((await this.references(db, table)).filter((p) => p !== table)));
    // Parents first (a table referring to another comes after it); a cycle, which the schema has none of, ends it.
    const ordered: string[] = [];
    const placed = new Set<string>();
    while (ordered.length < portable.length) {
      const next = portable.filter((t) => !placed.has(t) && [...parents.get(t)!].every((p) => placed.has(p) || !parents.has(p)));
      if (next.length === 0)
        throw new Error(`the tables refer to each other in a cycle: ${portable.filter((t) => !placed.has(t)).join(', ')}`);
      for (const t of next) {
        ordered.push(t);
        placed.add(t);
      }
    }
    return ordered;
  }

  private async references(db: Db, table: string): Promise<string[]> {
    if (this.dialect === 'sqlite')
      return (await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list(${table})`.execute(db)).rows.map((r) => r.table);
    return (
      await sql<{ parent: string }>`SELECT DISTINCT ccu.table_name AS parent
        FROM information_schema.table_constraints tc
        JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
        WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_name = ${table} AND tc.table_schema = current_schema()`.execute(db)
    ).rows.map((r) => r.parent);
  }

  async columns(db: Db, table: string): Promise<string[]> {
    if (this.dialect === 'sqlite')
      return (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table}) ORDER BY cid`.execute(db)).rows.map((r) => r.name);
    return (
      await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
        WHERE table_name = ${table} AND table_schema = current_schema() ORDER BY ordinal_position`.execute(db)
    ).rows.map((r) => r.name);
  }

  /** One batch of a table's rows, in a stable order (every column, so that a table without a key pages too). */
  async rows(db: Db, table: string, columns: readonly string[], offset: number): Promise<Record<string, unknown>[]> {
    const order = sql.join(columns.map((c) => sql.ref(c)));
    return (
      await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY ${order} LIMIT ${BATCH} OFFSET ${offset}`.execute(db)
    ).rows;
  }

  async count(db: Db, table: string): Promise<number> {
    return Number((await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0]?.n ?? 0);
  }

  async insert(db: Db, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    // Within the engines' bound on parameters (SQLite's 32,766, PostgreSQL's 65,535).
    const per = Math.max(1, Math.floor(30_000 / Math.max(1, columns.length)));
    for (let i = 0; i < rows.length; i += per) {
      const chunk = rows.slice(i, i + per);
      const values = sql.join(chunk.map((r) => sql`(${sql.join(columns.map((c) => r[c] ?? null))})`));
      await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) VALUES ${values}`.execute(db);
    }
  }

  /** Empties the tables, children first. */
  async clear(db: Db, tables: readonly string[]): Promise<void> {
    for (const table of [...tables].reverse()) await sql`DELETE FROM ${sql.table(table)}`.execute(db);
    // The search indexes follow their rows by triggers; SQLite's FTS documents are keyed by search_docs.
    if (this.dialect === 'sqlite') {
      await sql`DELETE FROM search_docs`.execute(db);
      await sql`DELETE FROM series_read_counts`.execute(db);
    }
  }

  /** In one transaction, with foreign keys checked as on any write. */
  write<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return (this.database.db as unknown as Kysely<unknown>).transaction().execute(work);
  }

  /** The schema versions this server knows, oldest first. */
  knownVersions(): string[] {
    return migrationNames();
  }

  /**
   * In one transaction on one connection: drops every table, trigger and function the migrations made, rebuilds the
   * schema as `version` had it, runs `load` (a backup of that version goes in), then migrates to this server's schema
   * as any upgrade does. Either all of it happens or none: a failure leaves the database as it was.
   */
  async rebuildAt(version: string, load: (db: Db) => Promise<void>): Promise<void> {
    await this.db.connection().execute(async (conn) => {
      await sql`BEGIN`.execute(conn);
      try {
        await this.dropAll(conn);
        const here = { db: conn as unknown as Database['db'], dialect: this.dialect };
        await migrateTo(here, version, true);
        await load(conn);
        await migrateToLatestIn(here);
        await sql`COMMIT`.execute(conn);
      } catch (err) {
        // The failure's own error is the one to report, not a ROLLBACK's after SQLite rolled back by itself.
        await sql`ROLLBACK`.execute(conn).catch(() => undefined);
        throw err;
      }
    });
  }

  private async dropAll(db: Db): Promise<void> {
    if (this.dialect === 'sqlite') {
      // Rows referring to a dropped table are checked at commit, when the backup's rows are all back.
      await sql`PRAGMA defer_foreign_keys = ON`.execute(db);
      const tables = (
        await sql<{
          name: string;
          sql: string | null;
        }>`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db)
      ).rows;
      // A virtual table first: dropping it drops its shadow tables.
      const virtual = (t: { sql: string | null }) => /^CREATE VIRTUAL/i.test(t.sql ?? '');
      for (const t of tables.filter(virtual)) await sql`DROP TABLE IF EXISTS ${sql.table(t.name)}`.execute(db);
      // Then children before their parents: a dropped table's rows are checked against parents that must still exist.
      let left = (
        await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db)
      ).rows.map((r) => r.name);
      const parents = new Map<string, string[]>();
      for (const table of left)
        parents.set(
          table,
          (await this.references(db, table)).filter((p) => p !== table),
        );
      while (left.length > 0) {
        const referred = new Set(left.flatMap((t) => parents.get(t) ?? []));
        const leaves = left.filter((t) => !referred.has(t));
        if (leaves.length === 0) throw new Error(`the tables refer to each other in a cycle: ${left.join(', ')}`);
        for (const table of leaves) await sql`DROP TABLE ${sql.table(table)}`.execute(db);
        left = left.filter((t) => !leaves.includes(t));
      }
      return;
    }
    const tables = (await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`.execute(db))
      .rows;
    if (tables.length > 0) await sql`DROP TABLE IF EXISTS ${sql.join(tables.map((t) => sql.table(t.name)))} CASCADE`.execute(db);
    // The search functions; not those an extension owns.
    const functions = (
      await sql<{ signature: string }>`SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`.execute(db)
    ).rows;
    for (const f of functions) await sql`DROP FUNCTION IF EXISTS ${sql.raw(f.signature)} CASCADE`.execute(db);
  }

  /** The libraries and their folders (after a restore: which folders are missing here). */
  async libraries(): Promise<{ id: string; name: string; path: string }[]> {
    return (await sql<{ id: string; name: string; path: string }>`SELECT id, name, path FROM libraries ORDER BY name`.execute(this.db))
      .rows;
  }

  /** The last migration applied: the schema version a backup records. */
  async schemaVersion(db: Db = this.db): Promise<string | null> {
    try {
      const rows = (await sql<{ name: string }>`SELECT name FROM colophon_migrations ORDER BY name DESC LIMIT 1`.execute(db)).rows;
      return rows[0]?.name ?? null;
    } catch {
      return null;
    }
  }

  private get db(): Kysely<unknown> {
    return this.database.db as unknown as Kysely<unknown>;
  }
}
