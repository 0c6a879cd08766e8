import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config/schema.js';
import { rowBuilder, type RowBuilder } from './row-builder.js';
import { markFromDatabase } from './unavailable.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Connection settings for a dedicated client (PostgreSQL LISTEN needs one outside the pool). */
  pgConfig?: pg.PoolConfig;
  /**
   * SQLite only, once the connection is open: a text that changes whenever the database has changed (rows this
   * connection changed, triggers included, or a commit by another connection), from one kept statement.
   */
  changeVersion?(): string | undefined;
  /**
   * SQLite only: the next changeVersion reads the database again. The version is read at most once per turn of the
   * event loop; a request calls this as it begins, so that it sees every commit made before it came.
   */
  readChangeVersionAfresh?(): void;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /**
   * PostgreSQL: where to report a pooled connection the server dropped (the pool replaces it; the query that
   * was running on it fails on its own). Until called, such errors are swallowed so they cannot crash the process.
   */
  reportConnectionErrors?(report: (err: Error) => void): void;
  close(): Promise<void>;
}

let pgModule: typeof pg | undefined;

/**
 * The PostgreSQL driver, loaded when a PostgreSQL database is first opened: a server on SQLite never needs it,
 * and it costs every start ~0.3 s and ~10 MB. (Synchronous, so opening a database stays synchronous; pg is CommonJS.)
 */
export function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof pg;
    // COUNT(*) and BIGINT come back from pg as strings; every count we keep fits a double.
    pgModule.types.setTypeParser(pgModule.types.builtins.INT8, (v) => Number(v));
    pgModule.types.setTypeParser(pgModule.types.builtins.NUMERIC, (v) => Number(v));
  }
  return pgModule;
}

export function sqlitePathFor(config: Config): string {
  return config.database.path ?? path.join(config.data_dir, 'colophon.db');
}

/** Opens lazily: nothing connects or creates a file until the first query. */
export function openDatabase(config: Config): Database {
  return config.database.type === 'postgres' ? openPostgres(config) : openSqlite(config);
}

function openSqlite(config: Config): Database {
  const file = sqlitePathFor(config);
  let handle: SQLite.Database | undefined;
  let version: ChangeVersion | undefined;
  const db = new Kysely<DB>({
    dialect: new SqliteDialect({
      database: async () => {
        if (file !== ':memory:') createPrivateDatabaseFile(file);
        handle = new SQLite(file);
        handle.pragma('journal_mode = WAL');
        handle.pragma('synchronous = NORMAL');
        handle.pragma('foreign_keys = ON');
        handle.pragma('busy_timeout = 5000');
        // A multi-row insert into books (full-text trigger, unique indexes) keeps a statement journal to undo a
        // half-done statement; past 64 KiB SQLite spills it to a temporary file, page by page. A scan's batches did
        // that on every chunk: ~90,000 of a 10,000-book first scan's ~160,000 page writes, ~0.3 s of the main
        // thread. Temporary tables and sorts stay in memory too; they are small at a library's sizes.
        handle.pragma('temp_store = MEMORY');
        // SQLite's lower() folds ASCII only, so a filter for "AMÉLIE" missed "Amélie"; PostgreSQL's folds Unicode.
        // Ours folds Unicode too, and composes accents first (NFC), so a name copied from macOS (NFD, "e" plus a
        // combining accent) matches one typed on a keyboard. Only the filters and searches use lower().
        handle.function('lower', { deterministic: true }, (text: unknown) =>
          typeof text === 'string' ? text.normalize('NFC').toLowerCase() : text,
        );
        version = new ChangeVersion(handle);
        reusePreparedStatements(handle, version.forget);
        return handle;
      },
    }),
  });
  return {
    db,
    dialect: 'sqlite',
    changeVersion: () => (handle?.open && version ? version.read() : undefined),
    readChangeVersionAfresh: () => version?.forget(),
    ping: async () => {
      if (handle && !handle.open) throw new Error('database is closed');
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * The database holds password hashes and API key hashes: its file is created 0600 (SQLite gives its -wal and
 * -shm files the mode of the database file), in a folder created 0700, and a file left group- or
 * world-readable by an older version is tightened when we own it.
 */
function createPrivateDatabaseFile(file: string): void {
  const resolved = path.resolve(file);
  mkdirSync(path.dirname(resolved), { recursive: true, mode: 0o700 });
  // `a` creates the file when missing and never truncates one that exists; an empty file is an empty database.
  closeSync(openSync(resolved, 'a', 0o600));
  try {
    const { mode, uid } = statSync(resolved);
    if ((mode & 0o077) !== 0 && (process.getuid === undefined || uid === process.getuid())) chmodSync(resolved, mode & 0o700);
  } catch {
    // Not ours to change (or a platform without modes): SQLite opens it as it is.
  }
}

/**
 * The connection's change version: `total_changes()` (rows this connection changed, triggers included) and
 * `data_version` (commits by other connections and processes). Reading data_version begins and ends a read
 * transaction (two locks and a stat of the file, ~7 µs), and a request asked it once per cache it consulted (a
 * series page: the caller, the total, the page…). So it is read at most once per turn of the event loop, and read
 * again after any statement of this connection that may write, and as each request begins
 * (Database.readChangeVersionAfresh): a commit by another process is seen by every request that comes after it, a
 * write of this connection at once.
 */
class ChangeVersion {
  private readonly statement: SQLite.Statement;
  private known: string | undefined;

  constructor(handle: SQLite.Database) {
    this.statement = handle.prepare("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version)").pluck();
  }

  read(): string {
    if (this.known === undefined) {
      this.known = String(this.statement.get());
      setImmediate(this.forget);
    }
    return this.known;
  }

  readonly forget = (): void => {
    this.known = undefined;
  };
}

/** Distinct SQL texts whose prepared statements are kept per SQLite connection. */
const MAX_STATEMENTS = 500;

/** Schema changes: after one, kept statements (and the column names read from them) are dropped. */
const DDL = /^\s*(create|alter|drop)\b/i;

/**
 * Kysely's SQLite driver prepares every query afresh; preparing (parsing and planning) costs about as much
 * as running a small indexed query, on the event loop. Statements are kept by SQL text (parameters are
 * bound per run) and reused, least recently used dropped past MAX_STATEMENTS. Safe because every statement
 * runs to completion synchronously (`all`/`run`, never an open `iterate`).
 *
 * Reads run in raw mode (rows as arrays) and become objects here: better-sqlite3 builds row objects through
 * the native API one property at a time, which cost ~40% of a 50-row, 19-column list query; a generated
 * object literal per statement (see rowBuilder) does the same in a fraction of that.
 */
function reusePreparedStatements(handle: SQLite.Database, wrote: () => void): void {
  const prepare = handle.prepare.bind(handle);
  const exec = handle.exec.bind(handle);
  handle.exec = ((source: string) => {
    try {
      return exec(source);
    } finally {
      wrote();
    }
  }) as typeof handle.exec;
  const statements = new Map<string, SQLite.Statement>();
  handle.prepare = ((source: string) => {
    if (DDL.test(source)) {
      statements.clear();
      return noticingWrites(prepare(source), wrote);
    }
    let statement = statements.get(source);
    if (statement) {
      statements.delete(source);
    } else {
      statement = noticingWrites(prepare(source), wrote);
      if (statement.reader) readRowsAsArrays(statement);
      if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    return statement;
  }) as typeof handle.prepare;
}

/** A statement that may write (`readonly` is SQLite's own answer) calls `wrote` after each run, whatever happened. */
function noticingWrites(statement: SQLite.Statement, wrote: () => void): SQLite.Statement {
  if (statement.readonly) return statement;
  // `iterate` is not wrapped: nothing here iterates (see reusePreparedStatements).
  for (const name of ['run', 'all', 'get'] as const) {
    const run = (statement[name] as (...params: unknown[]) => unknown).bind(statement);
    (statement as unknown as Record<string, unknown>)[name] = (...params: unknown[]) => {
      try {
        return run(...params);
      } finally {
        wrote();
      }
    };
  }
  return statement;
}

function readRowsAsArrays(statement: SQLite.Statement): void {
  const all = statement.all.bind(statement) as (...params: unknown[]) => unknown[][];
  let width = -1;
  let toObject: RowBuilder = () => ({});
  statement.all = ((...params: unknown[]) => {
    statement.raw(true);
    let rows: unknown[][];
    try {
      rows = all(...params);
    } finally {
      statement.raw(false);
    }
    if (rows.length === 0) return rows;
    if (rows[0]!.length !== width) {
      width = rows[0]!.length;
      toObject = rowBuilder(statement.columns().map((c) => c.name));
    }
    const out = new Array<Record<string, unknown>>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = toObject(rows[i]!);
    return out;
  }) as typeof statement.all;
}

/**
 * The pool as Kysely sees it, with every error of a connect or a query tagged as the database's
 * (db/unavailable.ts): only those may be reported as "database unreachable".
 */
function taggingErrors(pool: pg.Pool): PostgresPool {
  const tagged = (err: unknown): never => {
    throw markFromDatabase(err);
  };
  return {
    connect: async () => {
      const client = await pool.connect().catch(tagged);
      return {
        query: ((...args: unknown[]) => {
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          return result instanceof Promise ? result.catch(tagged) : result;
        }) as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

function openPostgres(config: Config): Database {
  const { host, port, name, user, password, pool_size, ssl } = config.database;
  const pgConfig: pg.PoolConfig = {
    host,
    port,
    database: name,
    user,
    password,
    ssl: ssl ? { rejectUnauthorized: false } : undefined,
    connectionTimeoutMillis: 5000,
  };
  const pool = new (loadPg().Pool)({ ...pgConfig, max: pool_size });
  let report: (err: Error) => void = () => undefined;
  // A client the server drops (restart, pg_terminate_backend, network) emits 'error'; without a listener that is
  // an uncaught exception. The pool listens only while a client is idle, so every client gets its own listener for
  // the time it is checked out too. The pool discards the broken client on release and opens a new one on demand.
  pool.on('connect', (client) => client.on('error', (err) => report(err)));
  // The pool re-emits an idle client's error; the client's own listener above has reported it.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: taggingErrors(pool) }) });
  let closed = false;
  return {
    db,
    dialect: 'postgres',
    pgConfig,
    reportConnectionErrors: (fn) => {
      report = fn;
    },
    ping: async () => {
      if (closed) throw new Error('database is closed');
      await sql`select 1`.execute(db);
    },
    close: async () => {
      closed = true;
      await db.destroy();
    },
  };
}
