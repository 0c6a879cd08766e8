import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateTo } from '../../src/db/migrate.js';
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
  await migrateTo(database, last);
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
