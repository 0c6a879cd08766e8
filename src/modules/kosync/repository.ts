import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { KosyncDocumentsTable } from '../../db/tables/reading.js';
import type { LibraryScope } from '../books/access.js';

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

  /** KOReader positions waiting for this book: documents no book matched yet whose id is the book's partial or file-name MD5. */
  pendingFor(bookId: string): Promise<KosyncDocumentRow[]> {
    return this.db
      .selectFrom('kosync_documents as d')
      .innerJoin('books as b', (join) => join.on((eb) => eb.or([eb('d.document', '=', eb.ref('b.koreader_md5')), eb('d.document', '=', eb.ref('b.koreader_name_md5'))])))
      .selectAll('d')
      .where('b.id', '=', bookId)
      .where('b.deleted_at', 'is', null)
      .where('d.book_id', 'is', null)
      .execute();
  }

  /** Attaches a waiting document to its book; false when another process (or request) attached it first. */
  async claim(userId: string, document: string, bookId: string): Promise<boolean> {
    const res = await this.db.updateTable('kosync_documents').set({ book_id: bookId }).where('user_id', '=', userId).where('document', '=', document).where('book_id', 'is', null).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** The account a waiting position belongs to (null when gone or disabled). */
  async activeUser(userId: string): Promise<{ id: string; username: string; email: string; role: string; permissions: string; security_stamp: string } | undefined> {
    return this.db.selectFrom('users').select(['id', 'username', 'email', 'role', 'permissions', 'security_stamp']).where('id', '=', userId).where('disabled', '=', 0).executeTakeFirst();
  }

  async attach(userId: string, document: string, bookId: string): Promise<void> {
    await this.db.updateTable('kosync_documents').set({ book_id: bookId }).where('user_id', '=', userId).where('document', '=', document).execute();
  }
}
