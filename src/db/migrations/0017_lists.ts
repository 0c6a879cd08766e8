import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Collections, read lists and the want-to-read shelf (tables/lists.ts says what each column means). */
export const lists: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('collections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('ordered', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('cover_series_id', 'text', (c) => c.references('series.id').onDelete('set null'))
      .addColumn('source', 'text', (c) => c.notNull().defaultTo('user'))
      .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('collections_owner_name').on('collections').columns(['owner_user_id', 'name_key']).execute();
    await db.schema
      .createTable('collection_series')
      .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
      .addColumn('series_id', 'text', (c) => c.notNull().references('series.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('collection_series_pk', ['collection_id', 'series_id'])
      .execute();
    await db.schema.createIndex('collection_series_series').on('collection_series').columns(['series_id']).execute();

    await db.schema
      .createTable('read_lists')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('cover_book_id', 'text', (c) => c.references('books.id').onDelete('set null'))
      .addColumn('source', 'text', (c) => c.notNull().defaultTo('user'))
      .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('read_lists_owner_name').on('read_lists').columns(['owner_user_id', 'name_key']).execute();
    await db.schema
      .createTable('read_list_items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('read_list_id', 'text', (c) => c.notNull().references('read_lists.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('book_id', 'text', (c) => c.references('books.id').onDelete('set null'))
      .addColumn('wanted_series', 'text')
      .addColumn('wanted_number', 'text')
      .addColumn('wanted_volume', 'text')
      .addColumn('wanted_year', 'text')
      .addColumn('wanted_cv_series', 'text')
      .addColumn('wanted_cv_issue', 'text')
      .execute();
    await db.schema.createIndex('read_list_items_list').on('read_list_items').columns(['read_list_id', 'position']).execute();
    await db.schema.createIndex('read_list_items_book').on('read_list_items').columns(['book_id']).execute();

    await db.schema
      .createTable('want_to_read')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('series_id', 'text', (c) => c.notNull().references('series.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('want_to_read_pk', ['user_id', 'series_id'])
      .execute();
  },
};
