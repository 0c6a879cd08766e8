import { randomBytes } from 'node:crypto';
import { Migrator, type Kysely, type Migration } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrations } from '../../src/db/migrations/index.js';
import { pgAdminSettings, testConfig, testDatabaseType } from './config.js';

/** A database migrated up to (and including) `last`, as an installation of that version has it. */
export async function databaseAt(last: string): Promise<{ database: Database; drop(): Promise<void> }> {
  let name: string | undefined;
  if (testDatabaseType() === 'postgres') {
    name = `colophon_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
  }
  const database = openDatabase(testConfig({}, name));
  const provider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(migrations).map(([key, m]): [string, Migration] => [
          key,
          { up: (db: Kysely<unknown>) => m.up(db, database.dialect) },
        ]),
      ),
  };
  const migrator = new Migrator({
    db: database.db,
    provider,
    migrationTableName: 'colophon_migrations',
    migrationLockTableName: 'colophon_migrations_lock',
  });
  const { error } = await migrator.migrateTo(last);
  if (error) throw error;
  return {
    database,
    drop: async () => {
      await database.close();
      if (!name) return;
      const admin = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
