import { sql, type Insertable, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { ReadListItemsTable, ReadListsTable } from '../../db/tables/lists.js';
import { bookVisible, type ContentScope, seriesVisible } from '../../identity/index.js';
import { escapeLike } from '../../catalog/index.js';
import { chunks } from '../../util/chunks.js';
import type { Viewer } from '../core/lists.js';

export type ReadListRow = Selectable<ReadListsTable>;
export type ReadListItemRow = Selectable<ReadListItemsTable>;

/** A list as one viewer sees it: counts of what the viewer sees, and the cover the viewer gets. */
export interface ReadListViewRow extends ReadListRow {
  book_count: number;
  missing_count: number;
  /** The list's cover book if the viewer sees it, else the first book the viewer sees; null when none. */
  effective_cover_book_id: string | null;
}

/** An entry with what the viewer may know of its book. */
export interface ItemWithBook extends ReadListItemRow {
  /** 1 when the entry's book is present and the viewer sees it. */
  visible: number;
}

/** What exporting an entry needs of its book. */
export interface ExportBookRow {
  id: string;
  number: string | null;
  volume: number | null;
  year: number | null;
  metadata: string;
  series_name: string;
  series_title: string | null;
  series_path: string;
  series_year: number | null;
}

export interface GapRow extends ReadListItemRow {
  owner_user_id: string | null;
}

const CHUNK = 500;

/** SQL of read lists and their entries; what a viewer sees of them is decided here, in the queries. */
export class ReadListsRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** A present book the viewer sees (`alias` is a books row). */
  private bookShown(viewer: Viewer, alias: string): RawBuilder<SqlBool> {
    return sql<SqlBool>`(${sql.ref(`${alias}.deleted_at`)} is null and ${bookVisible(viewer.scope, alias)})`;
  }

  /**
   * Lists the viewer sees (`rl`): shared ones and its own; a restricted viewer sees a shared list only when it
   * sees one of its books (absent otherwise, like a book it may not see).
   */
  private listShown(viewer: Viewer): RawBuilder<SqlBool> {
    const own = sql<SqlBool>`rl.owner_user_id = ${viewer.userId}`;
    if (viewer.scope.all) return sql<SqlBool>`(rl.owner_user_id is null or ${own})`;
    return sql<SqlBool>`(${own} or (rl.owner_user_id is null and exists (select 1 from read_list_items si join books sb on sb.id = si.book_id where si.read_list_id = rl.id and ${this.bookShown(viewer, 'sb')})))`;
  }

  /**
   * Entries without a book are shown to unrestricted viewers and to the list's owner; a restricted viewer of a
   * shared list sees only the books it may see (an entry's wanted series could name a series hidden from it).
   */
  private gapsShown(viewer: Viewer): RawBuilder<SqlBool> {
    return viewer.scope.all ? sql<SqlBool>`1 = 1` : sql<SqlBool>`rl.owner_user_id = ${viewer.userId}`;
  }

  private viewQuery(viewer: Viewer) {
    return this.db
      .selectFrom('read_lists as rl')
      .selectAll('rl')
      .select([
        sql<number>`(select count(*) from read_list_items ci join books cb on cb.id = ci.book_id where ci.read_list_id = rl.id and ${this.bookShown(viewer, 'cb')})`.as(
          'book_count',
        ),
        sql<number>`(case when ${this.gapsShown(viewer)} then (select count(*) from read_list_items gi where gi.read_list_id = rl.id and gi.book_id is null and gi.wanted_series is not null) else 0 end)`.as(
          'missing_count',
        ),
        sql<string | null>`coalesce(
          (select vb.id from books vb where vb.id = rl.cover_book_id and ${this.bookShown(viewer, 'vb')}),
          (select fi.book_id from read_list_items fi join books fb on fb.id = fi.book_id where fi.read_list_id = rl.id and ${this.bookShown(viewer, 'fb')} order by fi.position limit 1)
        )`.as('effective_cover_book_id'),
      ])
      .where(this.listShown(viewer));
  }

  private static counted(row: ReadListViewRow): ReadListViewRow {
    return { ...row, book_count: Number(row.book_count), missing_count: Number(row.missing_count) };
  }

  async page(viewer: Viewer, search: string | null, offset: number, limit: number): Promise<{ total: number; rows: ReadListViewRow[] }> {
    const searched = search ? sql<SqlBool>`rl.name_key like ${`%${escapeLike(search.toLowerCase())}%`} escape '\\'` : sql<SqlBool>`1 = 1`;
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('read_lists as rl')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(this.listShown(viewer))
        .where(searched)
        .executeTakeFirstOrThrow(),
      this.viewQuery(viewer).where(searched).orderBy('rl.name_key').orderBy('rl.id').offset(offset).limit(limit).execute(),
    ]);
    return { total: Number(count.n), rows: rows.map(ReadListsRepository.counted) };
  }

  /** The lists holding a book, as the viewer sees them. */
  async ofBook(viewer: Viewer, bookId: string, offset: number, limit: number): Promise<{ total: number; rows: ReadListViewRow[] }> {
    const holds = sql<SqlBool>`exists (select 1 from read_list_items hi where hi.read_list_id = rl.id and hi.book_id = ${bookId})`;
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('read_lists as rl')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(this.listShown(viewer))
        .where(holds)
        .executeTakeFirstOrThrow(),
      this.viewQuery(viewer).where(holds).orderBy('rl.name_key').orderBy('rl.id').offset(offset).limit(limit).execute(),
    ]);
    return { total: Number(count.n), rows: rows.map(ReadListsRepository.counted) };
  }

  async view(viewer: Viewer, id: string): Promise<ReadListViewRow | undefined> {
    const row = await this.viewQuery(viewer).where('rl.id', '=', id).executeTakeFirst();
    return row ? ReadListsRepository.counted(row) : undefined;
  }

  /** The entries in order, with whether the viewer sees each one's book. */
  async items(viewer: Viewer, listId: string): Promise<ItemWithBook[]> {
    const rows = await this.db
      .selectFrom('read_list_items as i')
      .leftJoin('books as b', 'b.id', 'i.book_id')
      .selectAll('i')
      .select(sql<number>`case when b.id is not null and ${this.bookShown(viewer, 'b')} then 1 else 0 end`.as('visible'))
      .where('i.read_list_id', '=', listId)
      .orderBy('i.position')
      .orderBy('i.id')
      .execute();
    return rows.map((r) => ({ ...r, visible: Number(r.visible) }));
  }

  /** Of these ids, the present books the viewer sees. */
  async shownBooks(viewer: Viewer, ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunks([...new Set(ids)], CHUNK)) {
      const rows = await this.db
        .selectFrom('books as b')
        .select('b.id')
        .where('b.id', 'in', part)
        .where(this.bookShown(viewer, 'b'))
        .execute();
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** Whether the name (its key) is taken among the shared lists (`ownerId` null) or among one owner's. */
  async nameTaken(ownerId: string | null, nameKey: string, exceptId?: string): Promise<boolean> {
    let query = this.db.selectFrom('read_lists').select('id').where('name_key', '=', nameKey);
    query = ownerId === null ? query.where('owner_user_id', 'is', null) : query.where('owner_user_id', '=', ownerId);
    if (exceptId) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  get(id: string): Promise<ReadListRow | undefined> {
    return this.db.selectFrom('read_lists').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async create(list: Insertable<ReadListsTable>, items: readonly Insertable<ReadListItemsTable>[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('read_lists').values(list).execute();
      for (const part of chunks(items, CHUNK)) await trx.insertInto('read_list_items').values(part).execute();
    });
  }

  async update(id: string, patch: Partial<Omit<ReadListRow, 'id' | 'created_at'>>): Promise<void> {
    await this.db.updateTable('read_lists').set(patch).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('read_lists').where('id', '=', id).execute();
  }

  /**
   * Rewrites the entries of a list in the given order (positions 0…n-1, ids kept), with the list's own changes,
   * in one transaction. The list row is written first, so concurrent rewrites of one list on PostgreSQL queue
   * behind its row lock rather than interleave.
   */
  async rewrite(
    listId: string,
    patch: Partial<Omit<ReadListRow, 'id' | 'created_at'>>,
    build: (current: ReadListItemRow[]) => ReadListItemRow[],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('read_lists').set(patch).where('id', '=', listId).execute();
      const current = await trx
        .selectFrom('read_list_items')
        .selectAll()
        .where('read_list_id', '=', listId)
        .orderBy('position')
        .orderBy('id')
        .execute();
      const next = build(current).map((item, position) => ({ ...item, read_list_id: listId, position }));
      await trx.deleteFrom('read_list_items').where('read_list_id', '=', listId).execute();
      for (const part of chunks(next, CHUNK)) await trx.insertInto('read_list_items').values(part).execute();
    });
  }

  /** Progress of one user on some books: completed, and started. */
  async progressOf(userId: string, bookIds: readonly string[]): Promise<Map<string, { completed: boolean }>> {
    const out = new Map<string, { completed: boolean }>();
    for (const part of chunks([...new Set(bookIds)], CHUNK)) {
      const rows = await this.db
        .selectFrom('read_progress')
        .select(['book_id', 'is_completed'])
        .where('user_id', '=', userId)
        .where('book_id', 'in', part)
        .execute();
      for (const r of rows) out.set(r.book_id, { completed: Number(r.is_completed) === 1 });
    }
    return out;
  }

  /** What a CBL export writes of each book. */
  async exportRows(bookIds: readonly string[]): Promise<Map<string, ExportBookRow>> {
    const out = new Map<string, ExportBookRow>();
    for (const part of chunks([...new Set(bookIds)], CHUNK)) {
      const rows = await this.db
        .selectFrom('books as b')
        .innerJoin('series as s', 's.id', 'b.series_id')
        .select([
          'b.id',
          'b.number',
          'b.volume',
          'b.year',
          'b.metadata',
          's.name as series_name',
          's.title as series_title',
          's.path as series_path',
          's.year as series_year',
        ])
        .where('b.id', 'in', part)
        .execute();
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  /** Present series the scope sees (with what matching compares). */
  catalogSeries(scope: ContentScope) {
    return this.db
      .selectFrom('series as s')
      .select(['s.id', 's.name', 's.title', 's.path', 's.year'])
      .where('s.deleted_at', 'is', null)
      .where(seriesVisible(scope, 's'))
      .execute();
  }

  /** Present books of these series the scope sees, with their stored metadata record (for ComicVine links). */
  async catalogBooks(scope: ContentScope, seriesIds: readonly string[]) {
    const out: Array<{
      id: string;
      series_id: string;
      number: string | null;
      volume: number | null;
      year: number | null;
      metadata: string;
    }> = [];
    for (const part of chunks([...new Set(seriesIds)], CHUNK)) {
      out.push(
        ...(await this.db
          .selectFrom('books as b')
          .select(['b.id', 'b.series_id', 'b.number', 'b.volume', 'b.year', 'b.metadata'])
          .where('b.series_id', 'in', part)
          .where('b.deleted_at', 'is', null)
          .where(bookVisible(scope, 'b'))
          .execute()),
      );
    }
    return out;
  }

  /** Entries waiting for a book (from a CBL import), with their list's owner. */
  gaps(): Promise<GapRow[]> {
    return this.db
      .selectFrom('read_list_items as i')
      .innerJoin('read_lists as rl', 'rl.id', 'i.read_list_id')
      .selectAll('i')
      .select('rl.owner_user_id')
      .where('i.book_id', 'is', null)
      .where('i.wanted_series', 'is not', null)
      .execute();
  }

  /** Series ids of these present books. */
  async seriesOfBooks(bookIds: readonly string[]): Promise<Array<{ id: string; name: string; title: string | null; path: string }>> {
    const out: Array<{ id: string; name: string; title: string | null; path: string }> = [];
    for (const part of chunks([...new Set(bookIds)], CHUNK)) {
      out.push(
        ...(await this.db
          .selectFrom('series as s')
          .select(['s.id', 's.name', 's.title', 's.path'])
          .where('s.deleted_at', 'is', null)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('books as b')
                .select('b.id')
                .whereRef('b.series_id', '=', 's.id')
                .where('b.id', 'in', part)
                .where('b.deleted_at', 'is', null),
            ),
          )
          .execute()),
      );
    }
    return out;
  }

  /** A user's role and access setting (whose scope a private list's gaps are filled within). */
  owner(userId: string): Promise<{ role: string; content_access: string } | undefined> {
    return this.db.selectFrom('users').select(['role', 'content_access']).where('id', '=', userId).executeTakeFirst();
  }

  /** Gives a waiting entry its book, unless it got one meanwhile or the list holds the book already. */
  async fill(itemId: string, listId: string, bookId: string, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const held = await trx
        .selectFrom('read_list_items')
        .select('id')
        .where('read_list_id', '=', listId)
        .where('book_id', '=', bookId)
        .executeTakeFirst();
      if (held) return false;
      const res = await trx
        .updateTable('read_list_items')
        .set({ book_id: bookId })
        .where('id', '=', itemId)
        .where('book_id', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      await trx.updateTable('read_lists').set({ updated_at: now }).where('id', '=', listId).execute();
      return true;
    });
  }
}
