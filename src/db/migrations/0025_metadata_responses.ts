import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Online databases' answers kept for a while (tables/metadata.ts: `metadata_responses`). */
export const metadataResponses: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('metadata_responses')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('request_key', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('fetched_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('metadata_responses_pk', ['provider', 'request_key'])
      .execute();
    await db.schema.createIndex('metadata_responses_expiry').on('metadata_responses').columns(['expires_at']).execute();
  },
};
