import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** The durable task queue (see tables/tasks.ts). */
export const tasks: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('library_id', 'text')
      .addColumn('target_id', 'text')
      .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('active_key', 'text')
      .addColumn('progress_current', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('progress_total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('progress_message', 'text')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
      .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('worker_id', 'text')
      .addColumn('heartbeat_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // Claiming scans pending tasks by priority then age; lists filter by status and type.
    await db.schema.createIndex('tasks_claim').on('tasks').columns(['status', 'priority', 'created_at']).execute();
    await db.schema.createIndex('tasks_type_status').on('tasks').columns(['type', 'status']).execute();
    await db.schema.createIndex('tasks_library').on('tasks').columns(['library_id', 'type', 'created_at']).execute();
    // NULLs never collide in a unique index on either engine: only active tasks hold a key.
    await db.schema.createIndex('tasks_active_key').on('tasks').column('active_key').unique().execute();
  },
};
