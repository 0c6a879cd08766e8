import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './connection.js';
import { adoptFormerDatabaseNames } from './former-name.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration in name order; PostgreSQL instances starting together serialise on Kysely's lock. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  await adoptFormerDatabaseNames(database);
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(migrations).map(([name, m]): [string, Migration] => [
          name,
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
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
