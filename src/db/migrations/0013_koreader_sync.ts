import type { Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

/**
 * KOReader sync. `books.koreader_md5`: KOReader's partial MD5 of the file (media/koreader-md5.ts), the document
 * id its sync plugin sends by default; set by analysis, and by the next scan for books analysed before this
 * column existed. Indexed: every kosync request looks a document up by it.
 */
export const koreaderSync: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('books').addColumn('koreader_md5', 'text').execute();
    await db.schema.createIndex('books_koreader_md5').on('books').column('koreader_md5').execute();
  },
};
