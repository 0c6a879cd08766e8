import { fieldSources, lockedFields } from '../../db/metadata-locks.js';
import { type ContentScope, seriesVisible } from '../../identity/index.js';
import { sql, type Expression, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { DB } from '../../db/schema.js';
import type { SeriesTable } from '../../db/tables/catalog.js';
import { authorLeaf, compileCondition, idLeaf, listLeaf, textLeaf, yearLeaf } from '../search/condition-sql.js';
import type { Condition, Leaf, ReadStatus } from '../search/conditions.js';
import type { FullTextSearch } from '../search/fts.js';
import type { Sort } from '../search/sort.js';
import { ListPages } from '../search/pages.js';
import { ListTotals, totalKey } from '../search/totals.js';
import type { SeriesFacetField, SeriesFilterField, SeriesSortField } from './schemas.js';

export type SeriesRow = Selectable<SeriesTable>;

/** The columns a series view shows; lists read only these (not the raw metadata document or bookkeeping). */
export const SERIES_VIEW_COLUMNS = [
  'id',
  'library_id',
  'name',
  'path',
  'book_count',
  'total_size',
  'total_pages',
  'title',
  'summary',
  'publisher',
  'genres',
  'tags',
  'status',
  'language',
  'year',
  'reading_direction',
  'age_rating',
  'age',
  'sort_name',
  'total_book_count',
  'links',
  'alternate_titles',
  'authors',
  'external_ids',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof SeriesRow>;
export type SeriesViewRow = Pick<SeriesRow, (typeof SERIES_VIEW_COLUMNS)[number]>;
const seriesViewColumns = SERIES_VIEW_COLUMNS.map((c) => `series.${c}` as const);
export type { SeriesFacetField };

/** What a facet list covers: the caller's libraries, optionally narrowed to some of them. */
export interface FacetScope {
  scope: ContentScope;
  libraryIds?: readonly string[];
  /** Only these series (a collection's); empty or absent: no such restriction. */
  seriesIds?: readonly string[];
}

export interface SeriesReadCounts {
  read: number;
  inProgress: number;
}

export interface SeriesListQuery {
  userId: string;
  scope: ContentScope;
  libraryId?: string;
  condition?: Condition<SeriesFilterField> | null;
  fullText?: string | null;
  sort: Sort<SeriesSortField> | null;
  /** Series where the caller has a book in progress, most recently active first. */
  inProgressOnly?: boolean;
  offset: number;
  limit: number;
}

type FtsDB = DB & { fts: { id: string; rank: number } };
type SeriesQuery = SelectQueryBuilder<FtsDB, 'series', object>;

/** Nulls last in both directions on both engines (SQLite and PostgreSQL disagree by default). */
const nullsLast = (column: RawBuilder<unknown>) => sql`case when ${column} is null then 1 else 0 end`;

/** SQL of series lists: filters, full-text join, sorts, per-caller read counts. */
export class SeriesRepository {
  private readonly totals: ListTotals;
  private readonly pages: ListPages<SeriesViewRow>;

  constructor(
    private readonly database: Database,
    private readonly fts: FullTextSearch,
  ) {
    this.totals = new ListTotals(database);
    this.pages = new ListPages(database);
  }

  private get db() {
    return this.database.db;
  }

  /** The caller's latest progress update in the series (date_read). */
  private lastRead(userId: string) {
    return sql`(select max(p.updated_at) from read_progress p join books b on b.id = p.book_id where b.series_id = series.id and b.deleted_at is null and p.user_id = ${userId})`;
  }

  private sortColumn(field: SeriesSortField, userId: string): RawBuilder<unknown> {
    switch (field) {
      case 'name':
        return sql`series.sort_name`;
      case 'date_added':
        return sql`series.created_at`;
      case 'date_updated':
        return sql`series.updated_at`;
      case 'release_date':
        return sql`series.year`;
      case 'date_read':
        return this.lastRead(userId);
      case 'book_count':
        return sql`series.book_count`;
      case 'file_size':
        return sql`series.total_size`;
      case 'filename':
        return sql`series.path`;
      case 'page_count':
        return sql`series.total_pages`;
    }
  }

  private readStatus(userId: string, status: ReadStatus): Expression<SqlBool> {
    const completed = sql`(select count(*) from read_progress p join books b on b.id = p.book_id where b.series_id = series.id and b.deleted_at is null and p.user_id = ${userId} and p.is_completed = 1)`;
    const started = sql`exists (select 1 from read_progress p join books b on b.id = p.book_id where b.series_id = series.id and b.deleted_at is null and p.user_id = ${userId})`;
    const read = sql<SqlBool>`(series.book_count > 0 and ${completed} >= series.book_count)`;
    if (status === 'read') return read;
    if (status === 'unread') return sql<SqlBool>`not ${started}`;
    return sql<SqlBool>`(${started} and not ${read})`;
  }

  private leaf(userId: string, leaf: Leaf<SeriesFilterField>): Expression<SqlBool> {
    const { operator, value } = leaf;
    switch (leaf.field) {
      case 'libraryId':
        return idLeaf(sql`series.library_id`, operator, value);
      case 'genre':
        return listLeaf(this.database.dialect, sql`series.genres`, operator, value);
      case 'tag':
        return listLeaf(this.database.dialect, sql`series.tags`, operator, value);
      case 'status':
        return textLeaf(sql`series.status`, operator, value);
      case 'publisher':
        return textLeaf(sql`series.publisher`, operator, value);
      case 'language':
        return textLeaf(sql`series.language`, operator, value);
      case 'name':
        return textLeaf(sql`series.name`, operator, value);
      case 'readStatus': {
        const match = this.readStatus(userId, value as ReadStatus);
        return operator === 'isNot' ? sql<SqlBool>`not ${match}` : match;
      }
      case 'ageRating':
        return textLeaf(sql`series.age_rating`, operator, value);
      case 'releaseYear':
        return yearLeaf(sql`series.year`, operator, value);
      case 'collectionId': {
        // In that collection, when the caller sees the collection (shared, or its own): another user's is no match.
        const match = sql<SqlBool>`exists (select 1 from collection_series cs join collections c on c.id = cs.collection_id where cs.series_id = series.id and cs.collection_id = ${String(value)} and (c.owner_user_id is null or c.owner_user_id = ${userId}))`;
        return operator === 'isNot' ? sql<SqlBool>`not ${match}` : match;
      }
      case 'author': {
        // A series matches when one of its present books does; isNot when none does.
        const some = (test: Expression<SqlBool>) =>
          sql<SqlBool>`exists (select 1 from books fb where fb.series_id = series.id and fb.deleted_at is null and ${test})`;
        const match = some(
          authorLeaf(this.database.dialect, sql`fb.authors`, { ...leaf, operator: operator === 'isNot' ? 'is' : operator }),
        );
        return operator === 'isNot' ? sql<SqlBool>`not ${match}` : match;
      }
    }
  }

  private filtered(q: SeriesListQuery): { query: SeriesQuery; ranked: boolean } {
    let query = this.db.selectFrom('series').where('series.deleted_at', 'is', null) as unknown as SeriesQuery;
    if (!q.scope.all) query = query.where(seriesVisible(q.scope, 'series'));
    if (q.libraryId) query = query.where('series.library_id', '=', q.libraryId);
    if (q.condition) {
      const condition = q.condition;
      query = query.where(() => compileCondition(condition, (l) => this.leaf(q.userId, l)));
    }
    if (q.inProgressOnly) {
      query = query.where(
        sql<SqlBool>`exists (select 1 from read_progress p join books b on b.id = p.book_id where b.series_id = series.id and b.deleted_at is null and p.user_id = ${q.userId} and p.is_completed = 0)`,
      );
    }
    let ranked = false;
    if (q.fullText) {
      const matches = this.fts.series(q.fullText);
      if (!matches) return { query: query.where(sql<SqlBool>`1 = 0`), ranked };
      query = query.innerJoin(matches.as('fts'), (join) => join.onRef('fts.id', '=', 'series.id')) as unknown as SeriesQuery;
      ranked = true;
    }
    return { query, ranked };
  }

  /** A page of a list (remembered while the database is unchanged: ListPages) and the list's total. */
  async list(q: SeriesListQuery): Promise<{ total: number; rows: readonly SeriesViewRow[] }> {
    const [total, rows] = await Promise.all([
      this.totals.count(totalKey(q), () => this.filtered(q).query.select((eb) => eb.fn.countAll<number>().as('n'))),
      this.pages.rows(q, () => this.page(q)),
    ]);
    return { total, rows };
  }

  private async page(q: SeriesListQuery): Promise<SeriesViewRow[]> {
    const { query, ranked } = this.filtered(q);
    let page = query.select(seriesViewColumns);
    if (q.sort) {
      const column = this.sortColumn(q.sort.field, q.userId);
      if (q.sort.field === 'release_date' || q.sort.field === 'date_read') page = page.orderBy(nullsLast(column));
      page = page.orderBy(column, q.sort.direction).orderBy('series.id', q.sort.direction);
    } else if (q.inProgressOnly) {
      page = page.orderBy(this.lastRead(q.userId), 'desc').orderBy('series.id');
    } else if (ranked) {
      page = page
        .orderBy(sql`fts.rank`, 'desc')
        .orderBy('series.sort_name')
        .orderBy('series.id');
    } else {
      page = page.orderBy('series.sort_name').orderBy('series.id');
    }
    return (await page.offset(q.offset).limit(q.limit).execute()) as SeriesViewRow[];
  }

  /** `and ...` restricting series rows (alias `s`) to the scope and the asked libraries. */
  private facetScope(f: FacetScope): RawBuilder<unknown> {
    const parts: RawBuilder<unknown>[] = [];
    if (!f.scope.all) parts.push(sql` and ${seriesVisible(f.scope, 's')}`);
    if (f.libraryIds?.length) parts.push(sql` and s.library_id in (${sql.join([...f.libraryIds])})`);
    if (f.seriesIds?.length) parts.push(sql` and s.id in (${sql.join([...f.seriesIds])})`);
    return sql.join(parts, sql``);
  }

  /**
   * Distinct values of a field over present series (genres and tags: their elements). Scalar fields include
   * null when some series has no value (or an empty one); list fields never do.
   */
  async facet(field: SeriesFacetField, f: FacetScope): Promise<(string | null)[]> {
    const where = sql`s.deleted_at is null${this.facetScope(f)}`;
    let query: RawBuilder<{ value: string | null }>;
    if (field === 'genre' || field === 'tag') {
      const column = field === 'genre' ? sql`s.genres` : sql`s.tags`;
      const elements =
        this.database.dialect === 'sqlite' ? sql`json_each(${column}) as j` : sql`jsonb_array_elements_text(${column}::jsonb) as j(value)`;
      query = sql<{ value: string | null }>`select distinct j.value as value from series s, ${elements} where ${where} and j.value <> ''`;
    } else {
      const column = field === 'publisher' ? sql`s.publisher` : field === 'language' ? sql`s.language` : sql`s.age_rating`;
      query = sql<{
        value: string | null;
      }>`select distinct case when ${column} = '' then null else ${column} end as value from series s where ${where}`;
    }
    return (await query.execute(this.db)).rows.map((r) => r.value);
  }

  /** Distinct release years of present series. */
  async releaseYears(f: FacetScope): Promise<number[]> {
    const rows = await sql<{
      year: number;
    }>`select distinct s.year as year from series s where s.deleted_at is null and s.year is not null${this.facetScope(f)}`.execute(
      this.db,
    );
    return rows.rows.map((r) => Number(r.year));
  }

  /** Names and titles of present series (feeds show a book's series title); deleted ones filtered as in BooksRepository.pagesOf. */
  async titles(ids: readonly string[]): Promise<Array<{ id: string; library_id: string; name: string; title: string | null }>> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('series')
      .select(['id', 'library_id', 'name', 'title', 'deleted_at'])
      .where('id', 'in', [...ids])
      .execute();
    return rows.filter((r) => r.deleted_at === null);
  }

  /** The list rows of these present series (any order). */
  async viewRows(ids: readonly string[]): Promise<SeriesViewRow[]> {
    if (ids.length === 0) return [];
    return (await this.db
      .selectFrom('series')
      .select(seriesViewColumns)
      .where('id', 'in', [...ids])
      .where('deleted_at', 'is', null)
      .execute()) as SeriesViewRow[];
  }

  /** Of these series, those passing the scope (present or not: callers check presence themselves). */
  async passing(ids: readonly string[], scope: ContentScope): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('series')
      .select('id')
      .where('id', 'in', [...ids])
      .where(seriesVisible(scope, 'series'))
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** The locked metadata fields of these series (catalog/metadata). */
  locks(ids: readonly string[]): Promise<Map<string, Record<string, true>>> {
    return lockedFields(this.db, ids);
  }

  /** The fields of these series an online database filled, with where from (catalog/identify). */
  fieldSources(ids: readonly string[]): Promise<Map<string, Record<string, string>>> {
    return fieldSources(this.db, ids);
  }

  /** The sharing labels of each series (lower-cased, sorted); series without any are left out. */

  async sharingLabels(ids: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('series_sharing_labels')
      .select(['series_id', 'label'])
      .where('series_id', 'in', [...ids])
      .orderBy('label')
      .execute();
    for (const r of rows) out.set(r.series_id, [...(out.get(r.series_id) ?? []), r.label]);
    return out;
  }

  /** Replaces a series' sharing labels (already normalized). */
  async setSharingLabels(id: string, labels: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('series_sharing_labels').where('series_id', '=', id).execute();
      if (labels.length > 0)
        await trx
          .insertInto('series_sharing_labels')
          .values(labels.map((label) => ({ series_id: id, label })))
          .execute();
    });
  }

  get(id: string): Promise<SeriesRow | undefined> {
    return this.db.selectFrom('series').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  }

  /**
   * Finished and started-not-finished present books of each series, for one user. SQLite keeps them per user
   * and series in `series_read_counts` (migration 0011, maintained by triggers): one row per series. PostgreSQL
   * counts them here, driven by the page's series (books_series_order, then the progress key per book).
   */
  async readCounts(userId: string, seriesIds: readonly string[]): Promise<Map<string, SeriesReadCounts>> {
    const out = new Map<string, SeriesReadCounts>();
    if (seriesIds.length === 0) return out;
    if (this.database.dialect === 'sqlite') {
      const kept = await sql<{ series_id: string; read_count: number; in_progress_count: number }>`
        select series_id, read_count, in_progress_count from series_read_counts where user_id = ${userId} and series_id in (${sql.join([...seriesIds])})`.execute(
        this.db,
      );
      for (const r of kept.rows) out.set(r.series_id, { read: r.read_count, inProgress: r.in_progress_count });
      return out;
    }
    const rows = await sql<{ series_id: string; read: number; in_progress: number }>`
      select b.series_id,
        sum(case when p.is_completed = 1 then 1 else 0 end) as read,
        sum(case when p.is_completed = 0 then 1 else 0 end) as in_progress
      from books b join read_progress p on p.book_id = b.id
      where b.series_id in (${sql.join([...seriesIds])}) and b.deleted_at is null and p.user_id = ${userId}
      group by b.series_id`.execute(this.db);
    for (const r of rows.rows) out.set(r.series_id, { read: Number(r.read), inProgress: Number(r.in_progress) });
    return out;
  }
}
