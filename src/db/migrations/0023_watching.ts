import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** Watchers' leases and the scan explainer's decisions (tables/watching.ts says what each column means). */
export const watching: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('library_watchers')
      .addColumn('library_id', 'text', (c) => c.primaryKey().references('libraries.id').onDelete('cascade'))
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('file_decisions')
      .addColumn('library_id', 'text', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('book_id', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_decisions_pk', ['library_id', 'path'])
      .execute();
    await db.schema.createIndex('file_decisions_book').on('file_decisions').columns(['book_id']).execute();
    await db.schema
      .createTable('file_decision_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('library_id', 'text', (c) => c.notNull().references('libraries.id').onDelete('cascade'))
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('book_id', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('file_decision_log_library').on('file_decision_log').columns(['library_id', 'decided_at']).execute();
    await db.schema.createIndex('file_decision_log_book').on('file_decision_log').columns(['book_id']).execute();
  },
};
