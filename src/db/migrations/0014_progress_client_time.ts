import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Positions a device sends late (it was offline).
 *
 * `progress_events.client_at`: when the client says it recorded the position (the native API's `recorded_at`,
 * kosync's optional `timestamp`, OPDS Progression's `modified`); null when it did not say, and then the
 * position's time is `received_at`.
 * `progress_events.applied`: 0 for a position older than the current one when it arrived: it is kept in the
 * history (and can be restored) but did not become the position. Every event before this migration was applied.
 */
export const progressClientTime: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('progress_events').addColumn('client_at', 'text').execute();
    await db.schema
      .alterTable('progress_events')
      .addColumn('applied', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
};
