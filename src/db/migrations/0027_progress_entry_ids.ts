import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * The id a client gives a position it queued (the web app's offline outbox, issue 54): a position sent twice (the
 * answer to the first was lost) is recorded once. Unique per user; positions sent without one stay null.
 */
export const progressEntryIds: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('progress_events').addColumn('client_entry_id', 'text').execute();
    await db.schema
      .createIndex('progress_events_client_entry')
      .on('progress_events')
      .columns(['user_id', 'client_entry_id'])
      .unique()
      .execute();
  },
};
