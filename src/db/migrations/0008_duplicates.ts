import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

export const duplicates: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('duplicate_groups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('match_type', 'text', (c) => c.notNull())
      .addColumn('match_key', 'text', (c) => c.notNull())
      .addColumn('library_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('duplicate_groups_key', ['kind', 'match_type', 'match_key'])
      .execute();
    await db.schema
      .createTable('duplicate_members')
      .addColumn('group_id', 'text', (c) => c.notNull().references('duplicate_groups.id').onDelete('cascade'))
      .addColumn('member_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('duplicate_members_pk', ['group_id', 'member_id'])
      .execute();
    await db.schema.createIndex('duplicate_members_member').on('duplicate_members').column('member_id').execute();
  },
};
