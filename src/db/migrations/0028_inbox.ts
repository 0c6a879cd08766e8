import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** The inbox's folders and items (tables/inbox.ts says what each column means). */
export const inbox: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('inbox_folders')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('path', 'text', (c) => c.notNull().unique())
      .addColumn('library_id', 'text', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
      .addColumn('template', 'text', (c) => c.notNull())
      .addColumn('auto_file', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('holder', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('inbox_items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('folder_id', 'text', (c) => c.notNull().references('inbox_folders.id').onDelete('cascade'))
      .addColumn('library_id', 'text', (c) => c.notNull())
      .addColumn('file_path', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('mtime_ms', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text')
      .addColumn('format', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('series_id', 'text')
      .addColumn('series_name', 'text')
      .addColumn('number', 'text')
      .addColumn('volume', 'integer')
      .addColumn('year', 'integer')
      .addColumn('title', 'text')
      .addColumn('score', 'real', (c) => c.notNull().defaultTo(0))
      .addColumn('proposed_path', 'text')
      .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('reasons', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('duplicate_of', 'text')
      .addColumn('moved_from', 'text')
      .addColumn('problem', 'text')
      .addColumn('book_id', 'text')
      .addColumn('filed_path', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('inbox_items_status').on('inbox_items').columns(['status', 'created_at']).execute();
    await db.schema.createIndex('inbox_items_file').on('inbox_items').columns(['file_path']).execute();
  },
};
