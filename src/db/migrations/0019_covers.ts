import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Covers chosen by a person for a series or a book (tables/covers.ts says what each column means). */
export const covers: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('custom_covers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('series_id', 'text', (c) => c.references('series.id').onDelete('cascade'))
      .addColumn('book_id', 'text', (c) => c.references('books.id').onDelete('cascade'))
      .addColumn('image_hash', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('source_book_id', 'text', (c) => c.references('books.id').onDelete('set null'))
      .addColumn('source_page', 'integer')
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('custom_covers_series').on('custom_covers').column('series_id').unique().execute();
    await db.schema.createIndex('custom_covers_book').on('custom_covers').column('book_id').unique().execute();
  },
};
