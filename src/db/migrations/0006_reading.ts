import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Reading progress and statistics (see tables/reading.ts for what survives a purge). */
export const reading: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('read_progress')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('book_id', 'text', (c) => c.notNull().references('books.id').onDelete('cascade'))
      .addColumn('current_page', 'integer', (c) => c.notNull())
      .addColumn('is_completed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text')
      .addColumn('device_id', 'text')
      .addPrimaryKeyConstraint('read_progress_pk', ['user_id', 'book_id'])
      .execute();
    await db.schema.createIndex('read_progress_book').on('read_progress').column('book_id').execute();
    await db.schema.createIndex('read_progress_user_updated').on('read_progress').columns(['user_id', 'updated_at']).execute();

    await db.schema
      .createTable('read_throughs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('book_id', 'text', (c) => c.notNull())
      .addColumn('series_id', 'text', (c) => c.notNull())
      .addColumn('library_id', 'text', (c) => c.notNull())
      .addColumn('book_title', 'text', (c) => c.notNull())
      .addColumn('series_name', 'text', (c) => c.notNull())
      .addColumn('page_count', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('read_throughs_user').on('read_throughs').columns(['user_id', 'completed_at']).execute();

    await db.schema
      .createTable('reading_activity')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('book_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('series_id', 'text', (c) => c.notNull())
      .addColumn('library_id', 'text', (c) => c.notNull())
      .addColumn('book_title', 'text', (c) => c.notNull())
      .addColumn('series_name', 'text', (c) => c.notNull())
      .addColumn('pages_read', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('reading_ms', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updates', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_activity_pk', ['user_id', 'day', 'book_id', 'device_id'])
      .execute();

    await db.schema
      .createTable('reading_devices')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('reading_devices_pk', ['user_id', 'device_id'])
      .execute();
  },
};
