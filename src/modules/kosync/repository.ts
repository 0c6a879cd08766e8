import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { KosyncDocumentsTable } from '../../db/tables/reading.js';
import type { LibraryScope } from '../access/scope.js';

export type KosyncDocumentRow = Selectable<KosyncDocumentsTable>;

/** SQL of KOReader documents: matching a document id to a book, and the last position KOReader sent for it. */
export class KosyncRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /**
   * The present book a KOReader document id names, by partial MD5 first (the plugin's default), then by file-name
   * MD5. Several copies of one file: the oldest book, so the answer is stable.
   */
  async bookFor(document: string, scope: LibraryScope): Promise<{ id: string; format: string | null; page_count: number } | undefined> {
    for (const column of ['koreader_md5', 'koreader_name_md5'] as const) {
      let query = this.db.selectFrom('books').select(['id', 'format', 'page_count']).where(column, '=', document).where('deleted_at', 'is', null);
      if (!scope.all) query = scope.libraryIds.length ? query.where('library_id', 'in', [...scope.libraryIds]) : query.where(sql<SqlBool>`1 = 0`);
      const row = await query.orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
      if (row) return { ...row, page_count: Number(row.page_count) };
    }
    return undefined;
  }

  get(userId: string, document: string): Promise<KosyncDocumentRow | undefined> {
    return this.db.selectFrom('kosync_documents').selectAll().where('user_id', '=', userId).where('document', '=', document).executeTakeFirst();
  }

  async save(row: KosyncDocumentRow): Promise<void> {
    const { user_id: _u, document: _d, ...changes } = row;
    await this.db
      .insertInto('kosync_documents')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'document']).doUpdateSet(changes))
      .execute();
  }

  async attach(userId: string, document: string, bookId: string): Promise<void> {
    await this.db.updateTable('kosync_documents').set({ book_id: bookId }).where('user_id', '=', userId).where('document', '=', document).execute();
  }
}
