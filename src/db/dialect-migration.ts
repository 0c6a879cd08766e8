import type { Kysely } from 'kysely';
import type { Dialect } from './connection.js';

/** One schema migration (db/migrations/): told which database it runs on, since SQLite and PostgreSQL DDL differ. */
export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}
