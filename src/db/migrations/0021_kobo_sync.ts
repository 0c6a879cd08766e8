import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Kobo devices (one API key each) and what each was sent (tables/kobo.ts says what each column means). */
export const koboSync: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('kobo_devices')
      .addColumn('api_key_id', 'text', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('kobo_device_id', 'text')
      .addColumn('selection', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('generation', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_sync_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // No foreign key to books: a book that is gone must still be reported to the device as removed.
    await db.schema
      .createTable('kobo_synced_books')
      .addColumn('api_key_id', 'text', (c) => c.notNull().references('kobo_devices.api_key_id').onDelete('cascade'))
      .addColumn('book_id', 'text', (c) => c.notNull())
      .addColumn('metadata_stamp', 'text', (c) => c.notNull())
      .addColumn('progress_stamp', 'text', (c) => c.notNull())
      .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('kobo_synced_books_pk', ['api_key_id', 'book_id'])
      .execute();
    await db.schema
      .createTable('kobo_synced_tags')
      .addColumn('api_key_id', 'text', (c) => c.notNull().references('kobo_devices.api_key_id').onDelete('cascade'))
      .addColumn('tag_id', 'text', (c) => c.notNull())
      .addColumn('stamp', 'text', (c) => c.notNull())
      .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('kobo_synced_tags_pk', ['api_key_id', 'tag_id'])
      .execute();
    await db.schema.createIndex('kobo_synced_books_generation').on('kobo_synced_books').columns(['api_key_id', 'generation']).execute();
  },
};
