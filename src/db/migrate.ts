import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './connection.js';
import { adoptFormerDatabaseNames } from './former-name.js';
import { migrations } from './migrations/index.js';

/** Every migration's name, oldest first: the schema versions this server knows. */
export const migrationNames = (): string[] => Object.keys(migrations).sort();

/** `db` may be one connection inside a transaction the caller holds (`inTransaction`): the migrations then run in it. */
function migrator(database: Pick<Database, 'db' | 'dialect'>, inTransaction = false): Migrator {
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(migrations).map(([name, m]): [string, Migration] => [
          name,
          { up: (db: Kysely<unknown>) => m.up(db, database.dialect) },
        ]),
      ),
  };
  return new Migrator({
    db: database.db,
    provider,
    migrationTableName: 'colophon_migrations',
    migrationLockTableName: 'colophon_migrations_lock',
    disableTransactions: inTransaction,
  });
}

function applied(outcome: Awaited<ReturnType<Migrator['migrateToLatest']>>): string[] {
  const { error, results } = outcome;
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies every pending migration in name order; PostgreSQL instances starting together serialise on Kysely's lock. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  await adoptFormerDatabaseNames(database);
  return applied(await migrator(database).migrateToLatest());
}

/** Applies the migrations up to and including `last`: the schema an installation of that version has (restoring its backup). */
export async function migrateTo(database: Pick<Database, 'db' | 'dialect'>, last: string, inTransaction = false): Promise<string[]> {
  return applied(await migrator(database, inTransaction).migrateTo(last));
}

/** migrateToLatest on one connection inside a transaction the caller holds. */
export async function migrateToLatestIn(database: Pick<Database, 'db' | 'dialect'>): Promise<string[]> {
  return applied(await migrator(database, true).migrateToLatest());
}
