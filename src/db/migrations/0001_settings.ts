import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

export const settings: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .execute();
    await db.schema
      .createTable('settings_history')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('old_value', 'text')
      .addColumn('new_value', 'text')
      .addColumn('changed_by', 'text')
      .addColumn('changed_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('settings_history_key').on('settings_history').columns(['key', 'changed_at']).execute();
  },
};
