import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Libraries, series and books (see tables/catalog.ts for the meaning of each column). */
export const catalog: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('libraries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull().unique())
      .addColumn('scanning_config', 'text', (c) => c.notNull())
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_scanned_at', 'text')
      .execute();

    await db.schema
      .createTable('series')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('library_id', 'text', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('sort_name', 'text', (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('summary', 'text')
      .addColumn('publisher', 'text')
      .addColumn('status', 'text')
      .addColumn('language', 'text')
      .addColumn('age_rating', 'text')
      .addColumn('reading_direction', 'text')
      .addColumn('year', 'integer')
      .addColumn('genres', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('external_id', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('book_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total_size', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('total_pages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addUniqueConstraint('series_library_path', ['library_id', 'path'])
      .execute();
    await db.schema.createIndex('series_library_sort').on('series').columns(['library_id', 'deleted_at', 'sort_name']).execute();
    await db.schema.createIndex('series_sort').on('series').columns(['deleted_at', 'sort_name']).execute();
    await db.schema.createIndex('series_created').on('series').columns(['deleted_at', 'created_at']).execute();
    await db.schema.createIndex('series_updated').on('series').columns(['deleted_at', 'updated_at']).execute();
    await db.schema.createIndex('series_external_id').on('series').column('external_id').execute();

    await db.schema
      .createTable('books')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('library_id', 'text', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
      .addColumn('series_id', 'text', (c) => c.notNull().references('series.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('format', 'text')
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('mtime_ms', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text')
      .addColumn('page_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('pages', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('number', 'text')
      .addColumn('number_sort', 'double precision')
      .addColumn('volume', 'integer')
      .addColumn('year', 'integer')
      .addColumn('summary', 'text')
      .addColumn('publisher', 'text')
      .addColumn('language', 'text')
      .addColumn('isbn', 'text')
      .addColumn('genres', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('authors', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('cover_page', 'integer')
      .addColumn('analysis_error', 'text')
      .addColumn('analyzed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addUniqueConstraint('books_library_path', ['library_id', 'path'])
      .execute();
    await db.schema.createIndex('books_series_order').on('books').columns(['series_id', 'deleted_at', 'number_sort']).execute();
    await db.schema.createIndex('books_library_list').on('books').columns(['library_id', 'deleted_at', 'created_at']).execute();
    await db.schema.createIndex('books_created').on('books').columns(['deleted_at', 'created_at']).execute();
    await db.schema.createIndex('books_hash').on('books').column('hash').execute();
    await db.schema.createIndex('books_title').on('books').columns(['deleted_at', 'title']).execute();
  },
};
