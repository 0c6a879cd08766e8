import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { DB } from '../../db/schema.js';
import type { CollectionsTable } from '../../db/tables/lists.js';
import { type ContentScope, EVERYTHING, seriesVisible } from '../../identity/index.js';
import { escapeLike } from '../../catalog/index.js';
import { chunks } from '../../util/chunks.js';
import type { Viewer } from '../core/lists.js';

export type CollectionRow = Selectable<CollectionsTable>;

/** A collection as one viewer sees it: its row and what of its series that viewer sees. */
export interface CollectionViewRow extends CollectionRow {
  /** Present series of the collection the viewer sees. */
  series_count: number;
  /** `cover_series_id` when the viewer sees that series (present, in the collection), else null. */
  visible_cover: string | null;
  /** The first present series the viewer sees, in the collection's order. */
  first_series: string | null;
}

export interface CollectionFilter {
  /** Text the name contains, ignoring case. */
  search?: string;
  /** Collections holding a series of this library the viewer sees. */
  libraryId?: string;
  /** Collections holding this series. */
  seriesId?: string;
}

/** A member series and whether the viewer sees it (present and within the viewer's rules). */
export interface Member {
  series_id: string;
  seen: boolean;
}

/** Ids per statement, well below both engines' limits on parameters. */
const CHUNK = 500;

/** `exists` a present series of collection `c` (alias `s`) within the scope, with more conditions on `s`. */
function memberExists(scope: ContentScope, more: RawBuilder<unknown> = sql``): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from collection_series cs join series s on s.id = cs.series_id where cs.collection_id = c.id and s.deleted_at is null and ${seriesVisible(scope, 's')}${more})`;
}

/** Display order of a collection's series (`c`, `cs`, `s`): by position when ordered, else by name. */
const displayOrder = sql`case when c.ordered = 1 then cs.position end, s.sort_name, s.id`;

/**
 * SQL of collections (tables collections and collection_series). Every read takes the viewer, and applies the
 * household rules to the member series (access/scope-sql.ts): counts, covers and member lists hold only the
 * series the viewer sees. Built on a transaction by `transaction`.
 */
export class CollectionsRepository {
  constructor(
    private readonly database: Database,
    private readonly trx?: Kysely<DB>,
  ) {}

  private get db(): Kysely<DB> {
    return this.trx ?? this.database.db;
  }

  /** Runs `fn` in one transaction with a repository over it. */
  transaction<T>(fn: (repo: CollectionsRepository) => Promise<T>): Promise<T> {
    return this.database.db.transaction().execute((trx) => fn(new CollectionsRepository(this.database, trx)));
  }

  /**
   * Within a transaction: waits for other writers of this collection (PostgreSQL; SQLite writes one at a time) so
   * a read-modify-write of its members loses nobody's change.
   */
  async lock(id: string): Promise<void> {
    if (this.database.dialect === 'postgres')
      await this.db.selectFrom('collections').select('id').where('id', '=', id).forUpdate().execute();
  }

  /** Within a transaction: waits for other writers of names among the shared collections, or among one owner's. */
  async lockNames(owner: string | null): Promise<void> {
    if (this.database.dialect === 'postgres')
      await sql`select pg_advisory_xact_lock(hashtext(${`collections:${owner ?? 'shared'}`}))`.execute(this.db);
  }

  /**
   * Collections the viewer sees: shared ones and its own. A shared collection whose series are all hidden from a
   * restricted viewer is hidden too (an empty one is not: it shows nothing).
   */
  private seen(v: Viewer): RawBuilder<SqlBool> {
    const own = sql<SqlBool>`c.owner_user_id = ${v.userId}`;
    if (v.scope.all) return sql<SqlBool>`(c.owner_user_id is null or ${own})`;
    return sql<SqlBool>`(${own} or (c.owner_user_id is null and (${memberExists(v.scope)} or not ${memberExists(EVERYTHING)})))`;
  }

  private where(v: Viewer, f: CollectionFilter): RawBuilder<SqlBool> {
    const parts: RawBuilder<SqlBool>[] = [this.seen(v)];
    if (f.search) parts.push(sql<SqlBool>`c.name_key like ${`%${escapeLike(f.search.toLowerCase())}%`} escape '\\'`);
    if (f.libraryId) parts.push(memberExists(v.scope, sql` and s.library_id = ${f.libraryId}`));
    if (f.seriesId)
      parts.push(sql<SqlBool>`exists (select 1 from collection_series m where m.collection_id = c.id and m.series_id = ${f.seriesId})`);
    return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
  }

  private selectView(v: Viewer): RawBuilder<unknown> {
    const vis = seriesVisible(v.scope, 's');
    const members = sql`from collection_series cs join series s on s.id = cs.series_id where cs.collection_id = c.id and s.deleted_at is null and ${vis}`;
    return sql`select c.*,
      (select count(*) ${members}) as series_count,
      (select s.id ${members} and s.id = c.cover_series_id) as visible_cover,
      (select s.id ${members} order by ${displayOrder} limit 1) as first_series
      from collections c`;
  }

  private static normalize(row: CollectionViewRow): CollectionViewRow {
    return { ...row, series_count: Number(row.series_count), ordered: Number(row.ordered), edited: Number(row.edited) };
  }

  /** A page of the collections the viewer sees, by name, and their total. */
  async list(v: Viewer, f: CollectionFilter, offset: number, limit: number): Promise<{ total: number; rows: CollectionViewRow[] }> {
    const where = this.where(v, f);
    const [count, rows] = await Promise.all([
      sql<{ n: number }>`select count(*) as n from collections c where ${where}`.execute(this.db),
      sql<CollectionViewRow>`${this.selectView(v)} where ${where} order by c.name_key, c.id limit ${limit} offset ${offset}`.execute(
        this.db,
      ),
    ]);
    return { total: Number(count.rows[0]?.n ?? 0), rows: rows.rows.map(CollectionsRepository.normalize) };
  }

  /** A collection the viewer sees, or undefined. */
  async get(v: Viewer, id: string): Promise<CollectionViewRow | undefined> {
    const res = await sql<CollectionViewRow>`${this.selectView(v)} where c.id = ${id} and ${this.seen(v)}`.execute(this.db);
    const row = res.rows[0];
    return row && CollectionsRepository.normalize(row);
  }

  /** The viewer's series of each collection, in each collection's order. */
  async seriesIdsOf(ids: readonly string[], scope: ContentScope): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const part of chunks(ids, CHUNK)) {
      const res = await sql<{ collection_id: string; series_id: string }>`
        select cs.collection_id, s.id as series_id
        from collection_series cs join collections c on c.id = cs.collection_id join series s on s.id = cs.series_id
        where cs.collection_id in (${sql.join(part)}) and s.deleted_at is null and ${seriesVisible(scope, 's')}
        order by cs.collection_id, ${displayOrder}`.execute(this.db);
      for (const r of res.rows) out.set(r.collection_id, [...(out.get(r.collection_id) ?? []), r.series_id]);
    }
    return out;
  }

  /** A page of the series of a collection the viewer sees, in the collection's order, and their total. */
  async seriesPage(id: string, scope: ContentScope, offset: number, limit: number): Promise<{ total: number; ids: string[] }> {
    const from = sql`from collection_series cs join collections c on c.id = cs.collection_id join series s on s.id = cs.series_id
      where cs.collection_id = ${id} and s.deleted_at is null and ${seriesVisible(scope, 's')}`;
    const [count, rows] = await Promise.all([
      sql<{ n: number }>`select count(*) as n ${from}`.execute(this.db),
      sql<{ id: string }>`select s.id ${from} order by ${displayOrder} limit ${limit} offset ${offset}`.execute(this.db),
    ]);
    return { total: Number(count.rows[0]?.n ?? 0), ids: rows.rows.map((r) => r.id) };
  }

  /** Every member by position, each with whether the viewer sees it. */
  async members(id: string, scope: ContentScope): Promise<Member[]> {
    const res = await sql<{ series_id: string; seen: number }>`
      select cs.series_id, case when s.deleted_at is null and ${seriesVisible(scope, 's')} then 1 else 0 end as seen
      from collection_series cs join series s on s.id = cs.series_id
      where cs.collection_id = ${id} order by cs.position, cs.series_id`.execute(this.db);
    return res.rows.map((r) => ({ series_id: r.series_id, seen: Number(r.seen) === 1 }));
  }

  /** Of these series, the present ones within the scope. */
  async visibleSeries(ids: readonly string[], scope: ContentScope): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunks([...new Set(ids)], CHUNK)) {
      const rows = await this.db
        .selectFrom('series as s')
        .select('s.id')
        .where('s.id', 'in', part)
        .where('s.deleted_at', 'is', null)
        .where(seriesVisible(scope, 's'))
        .execute();
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** The row as stored, whoever asks. */
  row(id: string): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether another collection of the same owner (null: the shared ones) has this name key. */
  async nameTaken(nameKey: string, owner: string | null, exceptId?: string): Promise<boolean> {
    let q = this.db.selectFrom('collections').select('id').where('name_key', '=', nameKey);
    q = owner === null ? q.where('owner_user_id', 'is', null) : q.where('owner_user_id', '=', owner);
    if (exceptId) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async insert(row: Insertable<CollectionsTable>): Promise<void> {
    await this.db.insertInto('collections').values(row).execute();
  }

  async update(id: string, changes: Updateable<CollectionsTable>): Promise<void> {
    await this.db.updateTable('collections').set(changes).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<boolean> {
    const res = await this.db.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Replaces the members: `seriesIds` in order (positions 0, 1, ...). */
  async setMembers(id: string, seriesIds: readonly string[]): Promise<void> {
    await this.db.deleteFrom('collection_series').where('collection_id', '=', id).execute();
    for (const [n, part] of chunks(seriesIds, CHUNK).entries())
      await this.db
        .insertInto('collection_series')
        .values(part.map((series_id, i) => ({ collection_id: id, series_id, position: n * CHUNK + i })))
        .execute();
  }
}
