import { bookVisible, type ContentScope } from '../../identity/index.js';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { KosyncDocumentsTable } from '../../db/tables/reading.js';
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
  async bookFor(document: string, scope: ContentScope): Promise<{ id: string; format: string | null; page_count: number } | undefined> {
    for (const column of ['koreader_md5', 'koreader_name_md5'] as const) {
      let query = this.db
        .selectFrom('books')
        .select(['id', 'format', 'page_count'])
        .where(column, '=', document)
        .where('deleted_at', 'is', null);
      if (!scope.all) query = query.where(bookVisible(scope, 'books'));
      const row = await query.orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
      if (row) return { ...row, page_count: Number(row.page_count) };
    }
    return undefined;
  }

  get(userId: string, document: string): Promise<KosyncDocumentRow | undefined> {
    return this.db
      .selectFrom('kosync_documents')
      .selectAll()
      .where('user_id', '=', userId)
      .where('document', '=', document)
      .executeTakeFirst();
  }

  async save(row: KosyncDocumentRow): Promise<void> {
    const { user_id: _u, document: _d, ...changes } = row;
    await this.db
      .insertInto('kosync_documents')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'document']).doUpdateSet(changes))
      .execute();
  }

  /** Whether any KOReader position waits for a book at all. */
  async anyUnattached(): Promise<boolean> {
    const row = await this.db.selectFrom('kosync_documents').select('document').where('book_id', 'is', null).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** KOReader positions waiting for this book: documents no book matched yet whose id is the book's partial or file-name MD5. */
  async pendingFor(bookId: string): Promise<KosyncDocumentRow[]> {
    // Two indexed lookups (a scan sends one event per book): the book's ids, then the documents waiting on them.
    const book = await this.db
      .selectFrom('books')
      .select(['koreader_md5', 'koreader_name_md5'])
      .where('id', '=', bookId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    const ids = [book?.koreader_md5, book?.koreader_name_md5].filter((id): id is string => typeof id === 'string');
    if (ids.length === 0) return [];
    return this.db.selectFrom('kosync_documents').selectAll().where('document', 'in', ids).where('book_id', 'is', null).execute();
  }

  /** Attaches a waiting document to its book; false when another process (or request) attached it first. */
  async claim(userId: string, document: string, bookId: string): Promise<boolean> {
    const res = await this.db
      .updateTable('kosync_documents')
      .set({ book_id: bookId })
      .where('user_id', '=', userId)
      .where('document', '=', document)
      .where('book_id', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** The account a waiting position belongs to (null when gone or disabled). */
  async activeUser(
    userId: string,
  ): Promise<
    | { id: string; username: string; email: string; role: string; permissions: string; security_stamp: string; content_access: string }
    | undefined
  > {
    return this.db
      .selectFrom('users')
      .select(['id', 'username', 'email', 'role', 'permissions', 'security_stamp', 'content_access'])
      .where('id', '=', userId)
      .where('disabled', '=', 0)
      .executeTakeFirst();
  }
}
