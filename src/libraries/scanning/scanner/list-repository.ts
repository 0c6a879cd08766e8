import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../../db/connection.js';
import { newId, nowIso } from '../../../db/ids.js';
import type { DB } from '../../../db/schema.js';
import { parseScanningConfig, importsLists } from '../../schemas.js';
import { planLists, wantedLists, type ExistingList, type ListSourceBook, type ListsPlan } from './comicinfo-lists.js';
import { chunks } from '../../../util/chunks.js';

/** What one sync of the ComicInfo lists did. */
export interface ListSyncResult {
  collections: ListsPlan;
  readLists: ListsPlan;
}

const CHUNK = 500;

/**
 * The stored metadata records that name a list: the scanner writes them with `JSON.stringify` (no spaces), so a
 * non-empty `series_groups` or `story_arcs` shows as this text; the rest of the books are not read at all.
 */
const NAMES_A_LIST = sql<SqlBool>`(b.metadata like '%"series_groups":["%' or b.metadata like '%"story_arcs":[{%')`;

/**
 * The scanner's SQL for the shared lists it makes from ComicInfo (comicinfo-lists.ts plans them): one transaction
 * reads the present books that name a list in every library that imports lists, and the shared lists, and writes
 * only what differs (a sync that finds the lists as the books make them writes nothing).
 */
export class ListSyncRepository {
  constructor(private readonly database: Database) {}

  async sync(): Promise<ListSyncResult> {
    return this.database.db.transaction().execute(async (trx) => {
      await this.lock(trx);
      const libraries = await trx.selectFrom('libraries').select(['id', 'scanning_config']).execute();
      const importing = libraries.filter((l) => importsLists(parseScanningConfig(l.scanning_config))).map((l) => l.id);
      const books = await this.sourceBooks(trx, importing);
      const wanted = wantedLists(books);

      const collections = await trx
        .selectFrom('collections')
        .select(['id', 'name', 'name_key', 'source', 'edited', 'created_at', 'cover_series_id as cover'])
        .where('owner_user_id', 'is', null)
        .execute();
      const collectionPlan = planLists(wanted.collections, collections, await this.collectionMembers(trx, managedIds(collections)));

      const readLists = await trx
        .selectFrom('read_lists')
        .select(['id', 'name', 'name_key', 'source', 'edited', 'created_at', 'cover_book_id as cover'])
        .where('owner_user_id', 'is', null)
        .execute();
      const readListItems = await this.readListItems(trx, managedIds(readLists));
      const readListBooks = new Map([...readListItems].map(([id, items]) => [id, items.map((i) => i.book_id)]));
      const readListPlan = planLists(wanted.readLists, readLists, readListBooks);

      const now = nowIso();
      await this.applyCollections(trx, collectionPlan, now);
      await this.applyReadLists(trx, readListPlan, readListItems, now);
      return { collections: collectionPlan, readLists: readListPlan };
    });
  }

  /**
   * PostgreSQL: one sync at a time, and the shared lists' rows locked against a person's change in between (their
   * services lock a list's row before its name); the collections' name lock keeps a person from making a shared
   * collection of a name this sync is about to use. SQLite runs one transaction at a time anyway.
   */
  private async lock(trx: Kysely<DB>): Promise<void> {
    if (this.database.dialect !== 'postgres') return;
    await sql`select pg_advisory_xact_lock(hashtext('scanner:comicinfo-lists'))`.execute(trx);
    await trx.selectFrom('collections').select('id').where('owner_user_id', 'is', null).orderBy('id').forUpdate().execute();
    await trx.selectFrom('read_lists').select('id').where('owner_user_id', 'is', null).orderBy('id').forUpdate().execute();
    await sql`select pg_advisory_xact_lock(hashtext('collections:shared'))`.execute(trx);
  }

  private async sourceBooks(trx: Kysely<DB>, libraryIds: readonly string[]): Promise<ListSourceBook[]> {
    const out: ListSourceBook[] = [];
    for (const part of chunks(libraryIds, CHUNK)) {
      const rows = await trx
        .selectFrom('books as b')
        .innerJoin('series as s', 's.id', 'b.series_id')
        .select(['b.id', 'b.series_id', 'b.metadata', 'b.number_sort', 'b.title', 's.sort_name as series_sort'])
        .where('b.library_id', 'in', part)
        .where('b.deleted_at', 'is', null)
        .where(NAMES_A_LIST)
        .execute();
      for (const r of rows) out.push({ ...r, number_sort: r.number_sort === null ? null : Number(r.number_sort) });
    }
    return out;
  }

  private async collectionMembers(trx: Kysely<DB>, listIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const part of chunks(listIds, CHUNK)) {
      const rows = await trx
        .selectFrom('collection_series')
        .select(['collection_id', 'series_id'])
        .where('collection_id', 'in', part)
        .orderBy('collection_id')
        .orderBy('position')
        .orderBy('series_id')
        .execute();
      for (const r of rows) {
        const list = out.get(r.collection_id) ?? [];
        list.push(r.series_id);
        out.set(r.collection_id, list);
      }
    }
    return out;
  }

  private async readListItems(
    trx: Kysely<DB>,
    listIds: readonly string[],
  ): Promise<Map<string, Array<{ id: string; book_id: string | null }>>> {
    const out = new Map<string, Array<{ id: string; book_id: string | null }>>();
    for (const part of chunks(listIds, CHUNK)) {
      const rows = await trx
        .selectFrom('read_list_items')
        .select(['id', 'read_list_id', 'book_id'])
        .where('read_list_id', 'in', part)
        .orderBy('read_list_id')
        .orderBy('position')
        .orderBy('id')
        .execute();
      for (const r of rows) {
        const list = out.get(r.read_list_id) ?? [];
        list.push({ id: r.id, book_id: r.book_id });
        out.set(r.read_list_id, list);
      }
    }
    return out;
  }

  private async applyCollections(trx: Kysely<DB>, plan: ListsPlan, now: string): Promise<void> {
    for (const part of chunks(plan.remove, CHUNK)) await trx.deleteFrom('collections').where('id', 'in', part).execute();
    const rows = (collectionId: string, members: readonly string[]) =>
      members.map((series_id, position) => ({ collection_id: collectionId, series_id, position }));
    for (const list of plan.create) {
      const id = newId();
      await trx
        .insertInto('collections')
        .values({
          id,
          name: list.name,
          name_key: list.key,
          summary: '',
          ordered: 0,
          owner_user_id: null,
          cover_series_id: null,
          source: 'comicinfo',
          edited: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (const part of chunks(rows(id, list.members), CHUNK)) await trx.insertInto('collection_series').values(part).execute();
    }
    for (const change of plan.update) {
      await trx
        .updateTable('collections')
        .set({ name: change.name, updated_at: now, ...(change.clearCover ? { cover_series_id: null } : {}) })
        .where('id', '=', change.id)
        .execute();
      if (change.members === null) continue;
      await trx.deleteFrom('collection_series').where('collection_id', '=', change.id).execute();
      for (const part of chunks(rows(change.id, change.members), CHUNK)) await trx.insertInto('collection_series').values(part).execute();
    }
  }

  private async applyReadLists(
    trx: Kysely<DB>,
    plan: ListsPlan,
    current: ReadonlyMap<string, ReadonlyArray<{ id: string; book_id: string | null }>>,
    now: string,
  ): Promise<void> {
    for (const part of chunks(plan.remove, CHUNK)) await trx.deleteFrom('read_lists').where('id', 'in', part).execute();
    // Entries keep their ids while their book stays in the list.
    const rows = (listId: string, books: readonly string[]) => {
      const kept = new Map<string, string>();
      for (const item of current.get(listId) ?? []) if (item.book_id !== null && !kept.has(item.book_id)) kept.set(item.book_id, item.id);
      return books.map((book_id, position) => ({
        id: kept.get(book_id) ?? newId(),
        read_list_id: listId,
        position,
        book_id,
        wanted_series: null,
        wanted_number: null,
        wanted_volume: null,
        wanted_year: null,
        wanted_cv_series: null,
        wanted_cv_issue: null,
      }));
    };
    for (const list of plan.create) {
      const id = newId();
      await trx
        .insertInto('read_lists')
        .values({
          id,
          name: list.name,
          name_key: list.key,
          summary: '',
          owner_user_id: null,
          cover_book_id: null,
          source: 'comicinfo',
          edited: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (const part of chunks(rows(id, list.members), CHUNK)) await trx.insertInto('read_list_items').values(part).execute();
    }
    for (const change of plan.update) {
      await trx
        .updateTable('read_lists')
        .set({ name: change.name, updated_at: now, ...(change.clearCover ? { cover_book_id: null } : {}) })
        .where('id', '=', change.id)
        .execute();
      if (change.members === null) continue;
      const next = rows(change.id, change.members);
      await trx.deleteFrom('read_list_items').where('read_list_id', '=', change.id).execute();
      for (const part of chunks(next, CHUNK)) await trx.insertInto('read_list_items').values(part).execute();
    }
  }
}

/** The lists scans own: made from ComicInfo and not changed by a person since. */
const managedIds = (lists: readonly ExistingList[]): string[] =>
  lists.filter((l) => l.source === 'comicinfo' && Number(l.edited) === 0).map((l) => l.id);
