import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../config/schema.js';
import type { Database } from './connection.js';

// The product was called Bindery before its first release (decision 042). A developer's data folder from those
// builds keeps working: its database file and the names inside it are taken over once, here and nowhere else.
const FORMER = 'bindery';

/**
 * Renames `<data_dir>/bindery.db` (and its WAL files) to `colophon.db` when only the old one exists.
 * Returns the sentence to log, or undefined when there was nothing to do.
 */
export function adoptFormerDatabaseFile(config: Config): string | undefined {
  if (config.database.type !== 'sqlite' || config.database.path !== undefined) return undefined;
  const current = path.join(config.data_dir, 'colophon.db');
  const former = path.join(config.data_dir, `${FORMER}.db`);
  if (existsSync(current) || !existsSync(former)) return undefined;
  for (const suffix of ['-wal', '-shm', '']) {
    if (existsSync(former + suffix)) renameSync(former + suffix, current + suffix);
  }
  return `renamed the database file ${former} to ${current} (the product's former name)`;
}

/** Before migrations: the migration tables and PostgreSQL's search folding function under their new names. */
export async function adoptFormerDatabaseNames(database: Database): Promise<void> {
  const db = database.db;
  const tableExists = async (name: string): Promise<boolean> => {
    const found =
      database.dialect === 'postgres'
        ? await sql<{
            n: number;
          }>`select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name = ${name}`.execute(db)
        : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db);
    return Number(found.rows[0]?.n ?? 0) > 0;
  };
  if ((await tableExists(`${FORMER}_migrations`)) && !(await tableExists('colophon_migrations'))) {
    for (const table of ['migrations', 'migrations_lock']) {
      if (await tableExists(`${FORMER}_${table}`)) {
        await sql.raw(`ALTER TABLE ${FORMER}_${table} RENAME TO colophon_${table}`).execute(db);
      }
    }
  }
  if (database.dialect !== 'postgres') return;
  // The search triggers' functions name the folding function in their bodies: rewritten from their own definitions.
  await sql
    .raw(
      `DO $$ DECLARE f record; BEGIN
         IF to_regprocedure('${FORMER}_fold(text)') IS NOT NULL THEN
           ALTER FUNCTION ${FORMER}_fold(text) RENAME TO colophon_fold;
           FOR f IN SELECT oid FROM pg_proc WHERE proname IN ('series_search_sync', 'books_search_sync') LOOP
             EXECUTE replace(pg_get_functiondef(f.oid), '${FORMER}_fold', 'colophon_fold');
           END LOOP;
         END IF;
       END $$`,
    )
    .execute(db);
}
