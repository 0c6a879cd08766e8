import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

export const preferences: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('user_preferences')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_preferences_pk', ['user_id', 'key'])
      .execute();
  },
};
