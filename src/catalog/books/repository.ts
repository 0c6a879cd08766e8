import { lockedFields } from '../../db/metadata-locks.js';
import { bookVisible, type ContentScope } from '../../identity/index.js';
import { CompiledQuery, sql, type Expression, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { DB } from '../../db/schema.js';
import type { BooksTable } from '../../db/tables/catalog.js';
import type { ReadProgressTable } from '../../db/tables/reading.js';
import {
  authorLeaf,
  compileCondition,
  escapeLike,
  idLeaf,
  jsonMember,
  jsonObjectElements,
  listLeaf,
  textLeaf,
  yearLeaf,
} from '../search/condition-sql.js';
import type { Condition, Leaf, ReadStatus } from '../search/conditions.js';
import type { FullTextSearch } from '../search/fts.js';
import type { Sort } from '../search/sort.js';
import { UnchangedDatabaseCache } from '../../db/unchanged-cache.js';
import { ListPages } from '../search/pages.js';
import { ListTotals, totalKey } from '../search/totals.js';
import type { BookFilterField, BookSortField } from './schemas.js';

export type BookRow = Selectable<BooksTable>;

/**
 * The columns a book view shows. Lists and On Deck read only these: not the page list (a JSON document of
 * every page, kilobytes for a long book), the raw metadata or bookkeeping columns. Turning each column of
 * each row into a JavaScript value is a large part of a list's cost.
 */
export const BOOK_VIEW_COLUMNS = [
  'id',
  'series_id',
  'library_id',
  'title',
  'number',
  'volume',
  'path',
  'file_name',
  'size',
  'format',
  'page_count',
  'hash',
  'summary',
  'year',
  'publisher',
  'language',
  'isbn',
  'genres',
  'tags',
  'authors',
  'number_sort',
  'release_date',
  'links',
  'analysis_error',
  'mtime_ms',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof BookRow>;
export type BookViewRow = Pick<BookRow, (typeof BOOK_VIEW_COLUMNS)[number]>;
const bookViewColumns = BOOK_VIEW_COLUMNS.map((c) => `books.${c}` as const);
export type ProgressRow = Selectable<ReadProgressTable>;
export interface SeriesNameRow {
  id: string;
  name: string;
  metadata: string;
}
/** A present book with what file access needs: its library root. */
export type BookWithLibrary = BookRow & { library_path: string; series_name: string };

const PAGE_SOURCE_COLUMNS = [
  'books.id',
  'books.library_id',
  'books.series_id',
  'books.path',
  'books.format',
  'books.size',
  'books.mtime_ms',
  'books.hash',
  'books.page_count',
  'books.pages',
] as const;
/** The SQL of a query compiled once, whose one parameter is PARAMETER: checked, so it is run with another value. */
const PARAMETER = '\0parameter';
function compiledWithOneParameter(compiled: { sql: string; parameters: readonly unknown[] }): string {
  if (compiled.parameters.length !== 1 || compiled.parameters[0] !== PARAMETER)
    throw new Error(`not a one-parameter query: ${compiled.sql}`);
  return compiled.sql;
}

/** What a page request reads of a book (BooksRepository.pageSource). */
export type PageSourceRow = Pick<
  BookRow,
  'id' | 'library_id' | 'series_id' | 'path' | 'format' | 'size' | 'mtime_ms' | 'hash' | 'page_count' | 'pages'
> & {
  library_path: string;
};

/** Lists with a fixed meaning: in progress (latest first), recently read (finished, latest first), recently added. */
export type BookListMode = 'in_progress' | 'recently_read' | 'recently_added';

/** Which books an author list covers: the caller's libraries, optionally some libraries or series, a name part. */
export interface AuthorFacetQuery {
  scope: ContentScope;
  libraryIds?: readonly string[];
  seriesIds?: readonly string[];
  /** Case-insensitive part of the name. */
  search?: string | null;
}

export interface BookListQuery {
  userId: string;
  scope: ContentScope;
  libraryId?: string;
  seriesId?: string;
  condition?: Condition<BookFilterField> | null;
  fullText?: string | null;
  sort: Sort<BookSortField> | null;
  mode?: BookListMode;
  offset: number;
  limit: number;
}

type FtsDB = DB & { fts: { id: string; rank: number } };
type BookQuery = SelectQueryBuilder<FtsDB, 'books', object>;

const nullsLast = (column: RawBuilder<unknown>) => sql`case when ${column} is null then 1 else 0 end`;

/** On Deck pages kept while the database is unchanged (50 books are ~35 KB of rows). */
const DECK_PAGES_KEPT = 128;

/** SQL of book lists, On Deck, and single books. */
export class BooksRepository {
  private readonly totals: ListTotals;
  private readonly decks: UnchangedDatabaseCache<{ total: number; rows: readonly BookViewRow[] }>;
  private readonly pages: ListPages<BookViewRow>;
  private pageSourceSql: string | undefined;

  constructor(
    private readonly database: Database,
    private readonly fts: FullTextSearch,
  ) {
    this.totals = new ListTotals(database);
    this.decks = new UnchangedDatabaseCache(database, DECK_PAGES_KEPT);
    this.pages = new ListPages(database);
  }

  private get db() {
    return this.database.db;
  }

  private readStatus(userId: string, status: ReadStatus): Expression<SqlBool> {
    const progress = (extra: RawBuilder<unknown>) =>
      sql<SqlBool>`exists (select 1 from read_progress p where p.book_id = books.id and p.user_id = ${userId}${extra})`;
    if (status === 'unread') return sql<SqlBool>`not ${progress(sql``)}`;
    if (status === 'read') return progress(sql` and p.is_completed = 1`);
    return progress(sql` and p.is_completed = 0`);
  }

  private leaf(userId: string, leaf: Leaf<BookFilterField>): Expression<SqlBool> {
    const { operator, value } = leaf;
    switch (leaf.field) {
      case 'libraryId':
        return idLeaf(sql`books.library_id`, operator, value);
      case 'seriesId':
        return idLeaf(sql`books.series_id`, operator, value);
      case 'genre':
        return listLeaf(this.database.dialect, sql`books.genres`, operator, value);
      case 'tag':
        return listLeaf(this.database.dialect, sql`books.tags`, operator, value);
      case 'title':
        return textLeaf(sql`books.title`, operator, value);
      case 'readStatus': {
        const match = this.readStatus(userId, value as ReadStatus);
        return operator === 'isNot' ? sql<SqlBool>`not ${match}` : match;
      }
      case 'hasError': {
        const wantsError = (value === true) === (operator === 'is');
        return wantsError ? sql<SqlBool>`books.analysis_error is not null` : sql<SqlBool>`books.analysis_error is null`;
      }
      case 'releaseYear':
        return yearLeaf(sql`books.year`, operator, value);
      case 'readListId': {
        // In that read list, when the caller sees the list (shared, or its own): another user's is no match.
        const match = sql<SqlBool>`exists (select 1 from read_list_items ri join read_lists rl on rl.id = ri.read_list_id where ri.book_id = books.id and ri.read_list_id = ${String(value)} and (rl.owner_user_id is null or rl.owner_user_id = ${userId}))`;
        return operator === 'isNot' ? sql<SqlBool>`not ${match}` : match;
      }
      case 'author':
        return authorLeaf(this.database.dialect, sql`books.authors`, leaf);
    }
  }

  private sortColumn(field: BookSortField): RawBuilder<unknown> {
    switch (field) {
      case 'title':
        return sql`books.title`;
      case 'number':
        return sql`books.number_sort`;
      case 'file_size':
        return sql`books.size`;
      case 'page_count':
        return sql`books.page_count`;
      case 'created_at':
        return sql`books.created_at`;
      case 'modified_at':
        return sql`books.updated_at`;
    }
  }

  private filtered(q: BookListQuery): { query: BookQuery; ranked: boolean } {
    let query = this.db.selectFrom('books').where('books.deleted_at', 'is', null) as unknown as BookQuery;
    if (!q.scope.all) query = query.where(bookVisible(q.scope, 'books'));
    if (q.libraryId) query = query.where('books.library_id', '=', q.libraryId);
    if (q.seriesId) query = query.where('books.series_id', '=', q.seriesId);
    if (q.condition) {
      const condition = q.condition;
      query = query.where(() => compileCondition(condition, (l) => this.leaf(q.userId, l)));
    }
    if (q.mode === 'in_progress' || q.mode === 'recently_read') {
      query = query.innerJoin('read_progress as rp', (join) =>
        join
          .onRef('rp.book_id', '=', 'books.id')
          .on('rp.user_id', '=', q.userId)
          .on('rp.is_completed', '=', q.mode === 'in_progress' ? 0 : 1),
      ) as unknown as BookQuery;
    }
    let ranked = false;
    if (q.fullText) {
      const matches = this.fts.books(q.fullText);
      if (!matches) return { query: query.where(sql<SqlBool>`1 = 0`), ranked };
      query = query.innerJoin(matches.as('fts'), (join) => join.onRef('fts.id', '=', 'books.id')) as unknown as BookQuery;
      ranked = true;
    }
    return { query, ranked };
  }

  /** A page of a list (remembered while the database is unchanged: ListPages) and the list's total. */
  async list(q: BookListQuery): Promise<{ total: number; rows: readonly BookViewRow[] }> {
    const [total, rows] = await Promise.all([
      this.totals.count(totalKey(q), () => this.filtered(q).query.select((eb) => eb.fn.countAll<number>().as('n'))),
      this.pages.rows(q, () => this.page(q)),
    ]);
    return { total, rows };
  }

  private async page(q: BookListQuery): Promise<BookViewRow[]> {
    const { query, ranked } = this.filtered(q);
    let page = query.select(bookViewColumns);
    if (q.sort) {
      const column = this.sortColumn(q.sort.field);
      if (q.sort.field === 'number')
        page = page.orderBy(nullsLast(column)).orderBy(column, q.sort.direction).orderBy('books.title', q.sort.direction);
      else page = page.orderBy(column, q.sort.direction);
      page = page.orderBy('books.id', q.sort.direction);
    } else if (q.mode === 'in_progress') {
      page = page.orderBy(sql`rp.updated_at`, 'desc').orderBy('books.id');
    } else if (q.mode === 'recently_read') {
      page = page.orderBy(sql`rp.completed_at`, 'desc').orderBy('books.id');
    } else if (q.mode === 'recently_added') {
      page = page.orderBy('books.created_at', 'desc').orderBy('books.id', 'desc');
    } else if (ranked) {
      page = page
        .orderBy(sql`fts.rank`, 'desc')
        .orderBy('books.title')
        .orderBy('books.id');
    } else if (q.seriesId) {
      page = page
        .orderBy(nullsLast(sql`books.number_sort`))
        .orderBy('books.number_sort')
        .orderBy('books.title')
        .orderBy('books.id');
    } else {
      page = page.orderBy('books.title').orderBy('books.id');
    }
    return (await page.offset(q.offset).limit(q.limit).execute()) as BookViewRow[];
  }

  /** Distinct (name, role) pairs of the authors of present books. */
  async authors(q: AuthorFacetQuery): Promise<{ name: string; role: string }[]> {
    const dialect = this.database.dialect;
    const name = jsonMember(dialect, 'a', 'name');
    const role = jsonMember(dialect, 'a', 'role');
    const parts: RawBuilder<unknown>[] = [sql`b.deleted_at is null and ${name} is not null and ${name} <> ''`];
    if (!q.scope.all) parts.push(bookVisible(q.scope, 'b'));
    if (q.libraryIds?.length) parts.push(sql`b.library_id in (${sql.join([...q.libraryIds])})`);
    if (q.seriesIds?.length) parts.push(sql`b.series_id in (${sql.join([...q.seriesIds])})`);
    if (q.search) parts.push(sql`lower(${name}) like lower(${`%${escapeLike(q.search)}%`}) escape '\\'`);
    const rows = await sql<{ name: string; role: string | null }>`
      select distinct ${name} as name, ${role} as role from books b, ${jsonObjectElements(dialect, sql`b.authors`, 'a')}
      where ${sql.join(parts, sql` and `)}`.execute(this.db);
    return rows.rows.map((r) => ({ name: r.name, role: r.role ?? '' }));
  }

  /** Books with their library root and series name (what file access and covers need). */
  private withLibrary() {
    return this.db
      .selectFrom('books')
      .innerJoin('libraries', 'libraries.id', 'books.library_id')
      .innerJoin('series', 'series.id', 'books.series_id')
      .selectAll('books')
      .select(['libraries.path as library_path', 'series.name as series_name']);
  }

  /** The list rows of these present books (any order). */
  async viewRows(ids: readonly string[]): Promise<BookViewRow[]> {
    if (ids.length === 0) return [];
    return (await this.db
      .selectFrom('books')
      .select(bookViewColumns)
      .where('books.id', 'in', [...ids])
      .where('books.deleted_at', 'is', null)
      .execute()) as BookViewRow[];
  }

  /** A present book with its library root and series name. */
  get(id: string): Promise<BookWithLibrary | undefined> {
    return this.withLibrary().where('books.id', '=', id).where('books.deleted_at', 'is', null).executeTakeFirst();
  }

  /**
   * A present book with what serving one of its pages needs, and nothing else: a page request asks for it every
   * time (a reader turns dozens of pages a minute, across thousands of books), so the query is built and compiled
   * by Kysely once and then run with the id (building and compiling it cost more than running it). One lookup by
   * primary key; not remembered, so no cache is outgrown by a large library.
   */
  async pageSource(id: string): Promise<PageSourceRow | undefined> {
    this.pageSourceSql ??= compiledWithOneParameter(
      this.db
        .selectFrom('books')
        .innerJoin('libraries', 'libraries.id', 'books.library_id')
        .select([...PAGE_SOURCE_COLUMNS, 'libraries.path as library_path'])
        .where('books.id', '=', PARAMETER)
        .where('books.deleted_at', 'is', null)
        .compile(),
    );
    return (await this.db.executeQuery(CompiledQuery.raw(this.pageSourceSql, [id]))).rows[0] as PageSourceRow | undefined;
  }

  /**
   * The stored page lists of present books (feeds list them for a page of books at once). Deleted books are left
   * out here, not in SQL: without statistics SQLite takes `deleted_at is null` for a selective index condition
   * and, from about ten ids on, scans every present book through an index starting with deleted_at instead of
   * looking the ids up (measured: 14 ms instead of 0.04 ms for ten ids among 50,000 books).
   */
  async pagesOf(ids: readonly string[]): Promise<Array<{ id: string; library_id: string; series_id: string; pages: string }>> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('books')
      .select(['id', 'library_id', 'series_id', 'pages', 'deleted_at'])
      .where('id', 'in', [...ids])
      .execute();
    return rows.filter((r) => r.deleted_at === null);
  }

  /**
   * The first present book of a series (by number, then title) that has pages to show, else the first one:
   * its cover is the series cover, so one broken first issue does not blank the series.
   */
  firstOfSeries(seriesId: string): Promise<BookWithLibrary | undefined> {
    return this.withLibrary()
      .where('books.series_id', '=', seriesId)
      .where('books.deleted_at', 'is', null)
      .orderBy(sql`case when books.analysis_error is null and books.page_count > 0 then 0 else 1 end`)
      .orderBy(nullsLast(sql`books.number_sort`))
      .orderBy('books.number_sort')
      .orderBy('books.title')
      .orderBy('books.id')
      .limit(1)
      .executeTakeFirst();
  }

  /** The locked metadata fields of these books (catalog/metadata). */
  locks(ids: readonly string[]): Promise<Map<string, Record<string, true>>> {
    return lockedFields(this.db, ids);
  }

  /** Name and `metadata` document (where the name came from) of the given series. */

  async seriesNames(seriesIds: readonly string[]): Promise<Map<string, SeriesNameRow>> {
    const out = new Map<string, SeriesNameRow>();
    if (seriesIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('series')
      .select(['id', 'name', 'metadata'])
      .where('id', 'in', [...new Set(seriesIds)])
      .execute();
    for (const r of rows) out.set(r.id, r);
    return out;
  }

  /** Root folders of the given libraries, by library id. */
  async libraryRoots(libraryIds: readonly string[]): Promise<Map<string, string>> {
    if (libraryIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('libraries')
      .select(['id', 'path'])
      .where('id', 'in', [...new Set(libraryIds)])
      .execute();
    return new Map(rows.map((r) => [r.id, r.path]));
  }

  async progressOf(userId: string, bookIds: readonly string[]): Promise<Map<string, ProgressRow>> {
    const out = new Map<string, ProgressRow>();
    if (bookIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('read_progress')
      .selectAll()
      .where('user_id', '=', userId)
      .where('book_id', 'in', [...bookIds])
      .execute();
    for (const r of rows) out.set(r.book_id, r);
    return out;
  }

  /**
   * The present book just after (+1) or before (-1) this one in its series' reading order (number, then title:
   * the order of a series' book list), in one query over the series' books.
   */
  async neighbour(book: { id: string; series_id: string }, step: 1 | -1): Promise<BookViewRow | undefined> {
    const order = sql`order by case when number_sort is null then 1 else 0 end, number_sort, title, id`;
    const found = await sql<{ neighbour_id: string | null }>`
      select neighbour_id from (
        select id, ${step === 1 ? sql`lead(id) over (${order})` : sql`lag(id) over (${order})`} as neighbour_id
        from books where series_id = ${book.series_id} and deleted_at is null
      ) ordered where id = ${book.id}`.execute(this.db);
    const id = found.rows[0]?.neighbour_id;
    if (!id) return undefined;
    return this.db.selectFrom('books').select(bookViewColumns).where('books.id', '=', id).executeTakeFirst() as Promise<
      BookViewRow | undefined
    >;
  }

  /**
   * On Deck: for each series where the user finished at least one present book and has none in progress, the
   * first present book without progress (by number, then title) that can be read: a book whose analysis failed
   * (no pages) is passed over, as a reader could only bounce off it. Series most recently active first.
   *
   * Driven by the user's own progress (grouped per series), then one indexed probe per candidate series
   * (books_series_order) for its next book: the cost grows with what the user read, not with the catalog.
   * `materialized` keeps the probe from being evaluated twice (once for the filter, once for the column).
   * The page's rows and the total are remembered until the database changes (db/unchanged-cache.ts); the
   * rows are never modified by their users.
   */
  onDeck(
    userId: string,
    scope: ContentScope,
    offset: number,
    limit: number,
    libraryIds: readonly string[] = [],
  ): Promise<{ total: number; rows: readonly BookViewRow[] }> {
    const key = JSON.stringify([userId, scope, offset, limit, libraryIds]);
    return this.decks.remember(key, async () => {
      const { total, ids } = await this.onDeckIds(userId, scope, offset, limit, libraryIds);
      if (ids.length === 0) return { total, rows: [] };
      const rows = await this.db.selectFrom('books').select(bookViewColumns).where('books.id', 'in', ids).execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      return { total, rows: ids.map((id) => byId.get(id)).filter((r): r is BookViewRow => r !== undefined) };
    });
  }

  private async onDeckIds(
    userId: string,
    scope: ContentScope,
    offset: number,
    limit: number,
    libraryIds: readonly string[],
  ): Promise<{ total: number; ids: string[] }> {
    let scopeFilter = scope.all ? sql`` : sql` and ${bookVisible(scope, 'b')}`;
    // A series lies in one library, so narrowing its progress to some libraries narrows the deck to them.
    if (libraryIds.length > 0) scopeFilter = sql`${scopeFilter} and b.library_id in (${sql.join([...libraryIds])})`;
    const deck = sql`
      with activity as (
        select b.series_id, max(p.updated_at) as last_at
        from read_progress p join books b on b.id = p.book_id join series s on s.id = b.series_id
        where p.user_id = ${userId} and b.deleted_at is null and s.deleted_at is null${scopeFilter}
        group by b.series_id
        having sum(case when p.is_completed = 1 then 1 else 0 end) > 0 and sum(case when p.is_completed = 0 then 1 else 0 end) = 0
      ),
      deck as materialized (
        select a.series_id, a.last_at,
          (select b.id from books b
            where b.series_id = a.series_id and b.deleted_at is null
              and b.analysis_error is null and b.page_count > 0
              and not exists (select 1 from read_progress p where p.user_id = ${userId} and p.book_id = b.id)
            order by case when b.number_sort is null then 1 else 0 end, b.number_sort, b.title, b.id
            limit 1) as id
        from activity a
      )`;
    const page = await sql<{ id: string; total: number }>`${deck}
      select id, count(*) over () as total from deck where id is not null order by last_at desc, series_id limit ${limit} offset ${offset}`.execute(
      this.db,
    );
    let total = Number(page.rows[0]?.total ?? 0);
    if (page.rows.length === 0 && offset > 0) {
      const count = await sql<{ n: number }>`${deck} select count(*) as n from deck where id is not null`.execute(this.db);
      total = Number(count.rows[0]?.n ?? 0);
    }
    return { total, ids: page.rows.map((r) => r.id) };
  }
}
