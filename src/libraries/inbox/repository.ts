import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { InboxFoldersTable, InboxItemsTable } from '../../db/tables/inbox.js';

export type InboxFolderRow = Selectable<InboxFoldersTable>;
export type InboxItemRow = Selectable<InboxItemsTable>;
export type InboxItemPatch = Updateable<InboxItemsTable>;

/** A series of the target library, as the inbox matches files against it. */
export interface SeriesForMatch {
  id: string;
  name: string;
  /** The series' folder relative to the library (a loose file's own path). */
  path: string;
  /** JSON `[{provider, id}]`: what identification found it to be in the online databases. */
  external_ids: string;
}

/** A book elsewhere with a file's hash. */
export interface BookWithHash {
  id: string;
  library_id: string;
  library_path: string;
  series_id: string;
  path: string;
  title: string;
  deleted_at: string | null;
}

/** Statuses an item leaves the queue with. */
export const SETTLED = ['filed', 'rejected'] as const;

const numbers = (row: InboxItemRow): InboxItemRow => ({ ...row, size: Number(row.size), mtime_ms: Number(row.mtime_ms) });

/** Inbox folders and items; the series and books of a library as the inbox compares files with them. */
export class InboxRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  listFolders(): Promise<InboxFolderRow[]> {
    return this.db.selectFrom('inbox_folders').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  getFolder(id: string): Promise<InboxFolderRow | undefined> {
    return this.db.selectFrom('inbox_folders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertFolder(row: Insertable<InboxFoldersTable>): Promise<void> {
    await this.db.insertInto('inbox_folders').values(row).execute();
  }

  async updateFolder(id: string, patch: Updateable<InboxFoldersTable>): Promise<void> {
    await this.db.updateTable('inbox_folders').set(patch).where('id', '=', id).execute();
  }

  async deleteFolder(id: string): Promise<void> {
    await this.db.deleteFrom('inbox_folders').where('id', '=', id).execute();
  }

  /** Takes or renews the watch of a folder for `holder`; true when it holds it now. */
  async lease(folderId: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = new Date();
    const result = await this.db
      .updateTable('inbox_folders')
      .set({ holder, expires_at: new Date(now.getTime() + ttlMs).toISOString() })
      .where('id', '=', folderId)
      .where((eb) => eb.or([eb('holder', 'is', null), eb('holder', '=', holder), eb('expires_at', '<', now.toISOString())]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async releaseLease(folderId: string, holder: string): Promise<void> {
    await this.db
      .updateTable('inbox_folders')
      .set({ holder: null, expires_at: null })
      .where('id', '=', folderId)
      .where('holder', '=', holder)
      .execute();
  }

  async items(
    filter: { libraryIds: readonly string[] | null; status?: readonly string[]; folderId?: string },
    offset: number,
    limit: number,
  ): Promise<{ rows: InboxItemRow[]; total: number }> {
    let query = this.db.selectFrom('inbox_items');
    if (filter.libraryIds !== null) {
      if (filter.libraryIds.length === 0) return { rows: [], total: 0 };
      query = query.where('library_id', 'in', filter.libraryIds);
    }
    if (filter.status && filter.status.length > 0) query = query.where('status', 'in', filter.status);
    if (filter.folderId) query = query.where('folder_id', '=', filter.folderId);
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('created_at').orderBy('id').offset(offset).limit(limit).execute(),
      query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(numbers), total: Number(count.n) };
  }

  async item(id: string): Promise<InboxItemRow | undefined> {
    const row = await this.db.selectFrom('inbox_items').selectAll().where('id', '=', id).executeTakeFirst();
    return row && numbers(row);
  }

  /** The item still waiting for a file at this path (not filed, not rejected). */
  async waitingAt(filePath: string): Promise<InboxItemRow | undefined> {
    const row = await this.db
      .selectFrom('inbox_items')
      .selectAll()
      .where('file_path', '=', filePath)
      .where('status', 'not in', SETTLED)
      .executeTakeFirst();
    return row && numbers(row);
  }

  /** Items waiting in a folder (to forget those whose file has gone). */
  async waitingIn(folderId: string): Promise<InboxItemRow[]> {
    const rows = await this.db
      .selectFrom('inbox_items')
      .selectAll()
      .where('folder_id', '=', folderId)
      .where('status', 'not in', SETTLED)
      .execute();
    return rows.map(numbers);
  }

  async insertItem(row: Insertable<InboxItemsTable>): Promise<void> {
    await this.db.insertInto('inbox_items').values(row).execute();
  }

  async updateItem(id: string, patch: InboxItemPatch): Promise<void> {
    await this.db.updateTable('inbox_items').set(patch).where('id', '=', id).execute();
  }

  async deleteItem(id: string): Promise<void> {
    await this.db.deleteFrom('inbox_items').where('id', '=', id).execute();
  }

  /** Forgets an item whose file went, if nothing (a filing, a rejection) changed its status meanwhile. */
  async deleteItemIf(id: string, status: string): Promise<void> {
    await this.db.deleteFrom('inbox_items').where('id', '=', id).where('status', '=', status).execute();
  }

  /** Changes an item unless it is being filed or is settled (filed, rejected): a proposal never undoes a filing. */
  async updateWaiting(id: string, patch: InboxItemPatch): Promise<void> {
    await this.db
      .updateTable('inbox_items')
      .set(patch)
      .where('id', '=', id)
      .where('status', 'not in', ['filing', ...SETTLED])
      .execute();
  }

  /** Items left `filing` since before `before` (their process stopped mid-move). */
  async staleFiling(before: string): Promise<InboxItemRow[]> {
    const rows = await this.db
      .selectFrom('inbox_items')
      .selectAll()
      .where('status', '=', 'filing')
      .where('updated_at', '<', before)
      .execute();
    return rows.map(numbers);
  }

  /** The books (present or not) with these ids, with what their visibility is judged by. */
  booksByIds(ids: readonly string[]): Promise<Array<{ id: string; library_id: string; series_id: string }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('books').select(['id', 'library_id', 'series_id']).where('id', 'in', ids).execute();
  }

  /** Filed items of a library whose book the scan has not been looked for yet. */
  async filedWithoutBook(libraryId: string): Promise<InboxItemRow[]> {
    const rows = await this.db
      .selectFrom('inbox_items')
      .selectAll()
      .where('library_id', '=', libraryId)
      .where('status', '=', 'filed')
      .where('book_id', 'is', null)
      .execute();
    return rows.map(numbers);
  }

  seriesOf(libraryId: string): Promise<SeriesForMatch[]> {
    return this.db
      .selectFrom('series')
      .select(['id', 'name', 'path', 'external_ids'])
      .where('library_id', '=', libraryId)
      .where('deleted_at', 'is', null)
      .execute();
  }

  /** Books (present or soft-deleted) whose content has this hash, in any library. */
  booksWithHash(hash: string): Promise<BookWithHash[]> {
    return this.db
      .selectFrom('books')
      .innerJoin('libraries', 'libraries.id', 'books.library_id')
      .select([
        'books.id',
        'books.library_id',
        'libraries.path as library_path',
        'books.series_id',
        'books.path',
        'books.title',
        'books.deleted_at',
      ])
      .where('books.hash', '=', hash)
      .execute();
  }

  /** A present book of the series with this number (and volume, when given). */
  async bookNumbered(seriesId: string, number: string, volume: number | null): Promise<{ id: string; path: string } | undefined> {
    let query = this.db
      .selectFrom('books')
      .select(['id', 'path'])
      .where('series_id', '=', seriesId)
      .where('number', '=', number)
      .where('deleted_at', 'is', null);
    if (volume !== null) query = query.where((eb) => eb.or([eb('volume', '=', volume), eb('volume', 'is', null)]));
    return query.executeTakeFirst();
  }

  bookIn(id: string): Promise<{ id: string; library_id: string; series_id: string; path: string } | undefined> {
    return this.db
      .selectFrom('books')
      .select(['id', 'library_id', 'series_id', 'path'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Gives a filed item its book, if no one has yet: of the instances that heard the scan end, one goes on. */
  async attachBook(id: string, bookId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('inbox_items')
      .set({ book_id: bookId, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .where('book_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Marks an item `filing` if it still has `status`: of two acceptances at once, one files. */
  async claim(id: string, status: string): Promise<boolean> {
    const result = await this.db
      .updateTable('inbox_items')
      .set({ status: 'filing', updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .where('status', '=', status)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  bookAt(libraryId: string, path: string): Promise<{ id: string; series_id: string } | undefined> {
    return this.db
      .selectFrom('books')
      .select(['id', 'series_id'])
      .where('library_id', '=', libraryId)
      .where('path', '=', path)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }
}
