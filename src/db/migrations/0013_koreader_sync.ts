import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { newId } from '../ids.js';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * KOReader sync and the progress ledger.
 *
 * `books.koreader_md5`: KOReader's partial MD5 of the file (media/koreader-md5.ts), the document id its sync
 * plugin sends by default; set by analysis, and by the next scan for books analysed before this column existed.
 * Indexed: every kosync request looks a document up by it. `books.koreader_name_md5`: MD5 of the file name, the
 * id of KOReader's "filename" method; set by the scanner when a book is added or moved, and here for every book.
 *
 * `kosync_documents`: the last position KOReader sent per user and document id, with the book it was matched to
 * (null until a matching book appears).
 *
 * `progress_events` (tables/reading.ts): the history of positions. Each existing progress row becomes one event
 * (protocol `migrated`), so history starts from what users already had; read_progress stays the current position.
 */
export const koreaderSync: DialectMigration = {
  async up(db: Kysely<unknown>, dialect) {
    await db.schema.alterTable('books').addColumn('koreader_md5', 'text').execute();
    await db.schema.createIndex('books_koreader_md5').on('books').column('koreader_md5').execute();
    await db.schema.alterTable('books').addColumn('koreader_name_md5', 'text').execute();
    await db.schema.createIndex('books_koreader_name_md5').on('books').column('koreader_name_md5').execute();
    const named = db as Kysely<{ books: { id: string; file_name: string; koreader_name_md5: string | null } }>;
    for (const book of await named.selectFrom('books').select(['id', 'file_name']).execute()) {
      await named
        .updateTable('books')
        .set({ koreader_name_md5: createHash('md5').update(book.file_name).digest('hex') })
        .where('id', '=', book.id)
        .execute();
    }

    await db.schema
      .createTable('kosync_documents')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('book_id', 'text', (c) => c.references('books.id').onDelete('set null'))
      .addColumn('progress', 'text', (c) => c.notNull())
      .addColumn('percentage', dialect === 'postgres' ? 'double precision' : 'real', (c) => c.notNull())
      .addColumn('device', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('kosync_documents_pk', ['user_id', 'document'])
      .execute();
    await db.schema.createIndex('kosync_documents_unattached').on('kosync_documents').columns(['document', 'book_id']).execute();

    await db.schema
      .createTable('progress_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('book_id', 'text', (c) => c.notNull().references('books.id').onDelete('cascade'))
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('position', 'text', (c) => c.notNull())
      .addColumn('page', 'integer', (c) => c.notNull())
      .addColumn('percentage', dialect === 'postgres' ? 'double precision' : 'real', (c) => c.notNull())
      .addColumn('is_completed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('received_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('progress_events_user_book').on('progress_events').columns(['user_id', 'book_id', 'received_at']).execute();
    await db.schema.createIndex('progress_events_book').on('progress_events').column('book_id').execute();

    const rows = await sql<{
      user_id: string;
      book_id: string;
      current_page: number;
      is_completed: number;
      updated_at: string;
      device_id: string | null;
      page_count: number;
    }>`
      SELECT p.user_id, p.book_id, p.current_page, p.is_completed, p.updated_at, p.device_id, b.page_count
      FROM read_progress p JOIN books b ON b.id = p.book_id`.execute(db);
    const events = rows.rows.map((r) => {
      const pageCount = Number(r.page_count);
      const completed = Number(r.is_completed) === 1;
      return {
        id: newId(),
        user_id: r.user_id,
        book_id: r.book_id,
        device_id: r.device_id ?? 'unknown',
        protocol: 'migrated',
        position: JSON.stringify({ current_page: r.current_page, is_completed: completed }),
        page: r.current_page,
        percentage: completed ? 1 : pageCount > 0 ? Math.min(1, Math.round((r.current_page / pageCount) * 10_000) / 10_000) : 0,
        is_completed: completed ? 1 : 0,
        received_at: r.updated_at,
      };
    });
    for (let i = 0; i < events.length; i += 200) {
      await (db as Kysely<{ progress_events: (typeof events)[number] }>)
        .insertInto('progress_events')
        .values(events.slice(i, i + 200))
        .execute();
    }
  },
};
