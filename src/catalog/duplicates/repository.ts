import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../db/ids.js';
import type { DB } from '../../db/schema.js';

export interface FoundGroup {
  key: string;
  libraryId: string | null;
  members: string[];
}

export interface GroupRow {
  id: string;
  match_type: string;
  match_key: string;
  library_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BookMemberRow {
  group_id: string;
  book_id: string;
  title: string;
  path: string;
  size: number;
  hash: string | null;
  series_id: string;
  series_name: string;
  library_id: string;
  library_name: string;
}

export interface SeriesMemberRow {
  group_id: string;
  series_id: string;
  name: string;
  library_id: string;
  library_name: string;
  book_count: number;
  updated_at: string;
}

export type GroupKind = 'book' | 'series';

export class DuplicatesRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async bookHashGroups(): Promise<FoundGroup[]> {
    const rows = await this.db
      .selectFrom('books')
      .select(['hash', 'id'])
      .where('deleted_at', 'is', null)
      .where('hash', 'is not', null)
      .where('hash', 'in', (eb) =>
        eb
          .selectFrom('books')
          .select('hash')
          .where('deleted_at', 'is', null)
          .where('hash', 'is not', null)
          .groupBy('hash')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('hash')
      .orderBy('id')
      .execute();
    return groupBy(rows.map((r) => ({ key: r.hash as string, libraryId: null, member: r.id })));
  }

  async externalIdGroups(): Promise<FoundGroup[]> {
    const rows = await this.db
      .selectFrom('series')
      .select(['external_id', 'id'])
      .where('deleted_at', 'is', null)
      .where('external_id', 'is not', null)
      .where('external_id', 'in', (eb) =>
        eb
          .selectFrom('series')
          .select('external_id')
          .where('deleted_at', 'is', null)
          .where('external_id', 'is not', null)
          .groupBy('external_id')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('external_id')
      .orderBy('id')
      .execute();
    return groupBy(rows.map((r) => ({ key: r.external_id as string, libraryId: null, member: r.id })));
  }

  presentSeries(): Promise<Array<{ id: string; library_id: string; name: string; title: string | null }>> {
    return this.db
      .selectFrom('series')
      .select(['id', 'library_id', 'name', 'title'])
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  /** Makes the stored groups of one kind and match type equal to `found`: same keys keep their ids, gone keys go. */
  async syncGroups(kind: GroupKind, matchType: string, found: FoundGroup[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('duplicate_groups')
        .select(['id', 'match_key'])
        .where('kind', '=', kind)
        .where('match_type', '=', matchType)
        .execute();
      const idByKey = new Map(existing.map((g) => [g.match_key, g.id]));
      const keep = new Set(found.map((g) => g.key));
      const stale = existing.filter((g) => !keep.has(g.match_key)).map((g) => g.id);
      if (stale.length > 0) await trx.deleteFrom('duplicate_groups').where('id', 'in', stale).execute();
      const now = nowIso();
      for (const group of found) {
        let id = idByKey.get(group.key);
        if (id) {
          await trx.updateTable('duplicate_groups').set({ updated_at: now, library_id: group.libraryId }).where('id', '=', id).execute();
          await trx.deleteFrom('duplicate_members').where('group_id', '=', id).execute();
        } else {
          id = newId();
          await trx
            .insertInto('duplicate_groups')
            .values({
              id,
              kind,
              match_type: matchType,
              match_key: group.key,
              library_id: group.libraryId,
              created_at: now,
              updated_at: now,
            })
            .execute();
        }
        const groupId = id;
        await trx
          .insertInto('duplicate_members')
          .values(group.members.map((member_id) => ({ group_id: groupId, member_id })))
          .execute();
      }
    });
  }

  async listGroups(
    kind: GroupKind,
    matchType: string | undefined,
    offset: number,
    limit: number,
  ): Promise<{ rows: GroupRow[]; total: number }> {
    let base = this.db.selectFrom('duplicate_groups').where('kind', '=', kind);
    if (matchType) base = base.where('match_type', '=', matchType);
    const [rows, count] = await Promise.all([
      base
        .select(['id', 'match_type', 'match_key', 'library_id', 'created_at', 'updated_at'])
        .orderBy('created_at')
        .orderBy('id')
        .offset(offset)
        .limit(limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  bookMembers(groupIds: string[]): Promise<BookMemberRow[]> {
    if (groupIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('duplicate_members as m')
      .innerJoin('books as b', 'b.id', 'm.member_id')
      .innerJoin('series as s', 's.id', 'b.series_id')
      .innerJoin('libraries as l', 'l.id', 'b.library_id')
      .select([
        'm.group_id',
        'b.id as book_id',
        'b.title',
        'b.path',
        'b.size',
        'b.hash',
        's.id as series_id',
        's.name as series_name',
        'l.id as library_id',
        'l.name as library_name',
      ])
      .where('m.group_id', 'in', groupIds)
      .where('b.deleted_at', 'is', null)
      .orderBy('l.name')
      .orderBy('b.path')
      .execute();
  }

  seriesMembers(groupIds: string[]): Promise<SeriesMemberRow[]> {
    if (groupIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('duplicate_members as m')
      .innerJoin('series as s', 's.id', 'm.member_id')
      .innerJoin('libraries as l', 'l.id', 's.library_id')
      .select(['m.group_id', 's.id as series_id', 's.name', 'l.id as library_id', 'l.name as library_name', 's.book_count', 's.updated_at'])
      .where('m.group_id', 'in', groupIds)
      .where('s.deleted_at', 'is', null)
      .orderBy('l.name')
      .orderBy('s.name')
      .execute();
  }

  async deleteGroup(kind: GroupKind, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('duplicate_groups').where('id', '=', id).where('kind', '=', kind).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function groupBy(rows: Array<{ key: string; libraryId: string | null; member: string }>): FoundGroup[] {
  const groups = new Map<string, FoundGroup>();
  for (const row of rows) {
    const group = groups.get(row.key) ?? { key: row.key, libraryId: row.libraryId, members: [] };
    group.members.push(row.member);
    groups.set(row.key, group);
  }
  return [...groups.values()];
}
