import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Identification against online databases (tables/metadata.ts): provider settings, the review queue, the ids a series
 * has in each database, and who holds a lock (a person, or a provider's application, which scans keep too but the
 * next identification may replace).
 */
export const identify: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('metadata_providers')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(100))
      .addColumn('media_types', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text')
      .addColumn('header_name', 'text')
      .addColumn('secret', 'text')
      .addColumn('paused_until', 'text')
      .addColumn('quota_day', 'text')
      .addColumn('quota_used', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_problem', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('metadata_reviews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('series_id', 'text', (c) => c.notNull().unique().references('series.id').onDelete('cascade'))
      .addColumn('library_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .addColumn('candidates', 'text', (c) => c.notNull())
      .addColumn('best_score', 'real', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addColumn('decided_by', 'text')
      .execute();
    await db.schema.createIndex('metadata_reviews_status').on('metadata_reviews').columns(['status', 'best_score']).execute();
    await db.schema
      .alterTable('series')
      .addColumn('external_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('series')
      .addColumn('authors', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('metadata_locks')
      .addColumn('held_by', 'text', (c) => c.notNull().defaultTo('person'))
      .execute();
    await db.schema.alterTable('metadata_locks').addColumn('source', 'text').execute();
    await db.schema.alterTable('metadata_history').addColumn('source_detail', 'text').execute();
    await db.schema.alterTable('metadata_history').addColumn('before_held_by', 'text').execute();
    await db.schema.alterTable('metadata_history').addColumn('before_source', 'text').execute();
  },
};
