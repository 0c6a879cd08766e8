import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { MetadataHistoryTable } from '../../db/tables/metadata.js';
import type { EntityType } from './fields.js';
import { chunks } from '../../util/chunks.js';

export type HistoryInsert = Insertable<MetadataHistoryTable>;
export type HistoryRow = Selectable<MetadataHistoryTable> & { username: string | null };
type Row = Record<string, unknown>;

/** One edit, written in one transaction: the entities' columns, their locks and the history entries. */
export interface MetadataWrite {
  type: EntityType;
  updates: { id: string; columns: Row }[];
  /** `held_by` defaults to `person`; a provider's hold carries its source in words. */
  setLocks: { entity_id: string; field: string; file_value: string; held_by?: 'person' | 'provider'; source?: string | null }[];
  deleteLocks: { entity_id: string; field: string }[];
  history: HistoryInsert[];
  /** History entries this write undoes. */
  undone?: string[];
}

const IN_CHUNK = 500;
/**
 * History kept: the newest entries only (bounded storage, docs/metadata-editing.md). Pruned once in a while by
 * writes rather than by a schedule, which keeps it cheap and self-contained.
 */
export const HISTORY_LIMIT = 100_000;

/** SQL of metadata editing: entity rows, locks, history. */
export class MetadataRepository {
  private writes = 0;

  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Present series or book rows by id (every column: the editable fields and what access needs). */
  async rows(type: EntityType, ids: readonly string[]): Promise<Row[]> {
    const out: Row[] = [];
    for (const part of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows =
        type === 'series'
          ? await this.db.selectFrom('series').selectAll().where('id', 'in', part).where('deleted_at', 'is', null).execute()
          : await this.db.selectFrom('books').selectAll().where('id', 'in', part).where('deleted_at', 'is', null).execute();
      out.push(...(rows as unknown as Row[]));
    }
    return out;
  }

  /** Who holds each locked field of these entities (`person` or `provider`) and, for a provider, where from. */
  async holders(ids: readonly string[]): Promise<Map<string, Map<string, { held_by: string; source: string | null }>>> {
    const out = new Map<string, Map<string, { held_by: string; source: string | null }>>();
    for (const part of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.db
        .selectFrom('metadata_locks')
        .select(['entity_id', 'field', 'held_by', 'source'])
        .where('entity_id', 'in', part)
        .execute();
      for (const r of rows) {
        const m = out.get(r.entity_id) ?? new Map<string, { held_by: string; source: string | null }>();
        m.set(r.field, { held_by: r.held_by, source: r.source });
        out.set(r.entity_id, m);
      }
    }
    return out;
  }

  /** Locked fields of these entities, with the file's value each lock keeps (JSON text). */
  async locks(ids: readonly string[]): Promise<Map<string, Map<string, string>>> {
    const out = new Map<string, Map<string, string>>();
    for (const part of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.db
        .selectFrom('metadata_locks')
        .select(['entity_id', 'field', 'file_value'])
        .where('entity_id', 'in', part)
        .execute();
      for (const r of rows) {
        const m = out.get(r.entity_id) ?? new Map<string, string>();
        m.set(r.field, r.file_value);
        out.set(r.entity_id, m);
      }
    }
    return out;
  }

  async apply(write: MetadataWrite, now: string): Promise<void> {
    const table = write.type === 'series' ? 'series' : 'books';
    await this.db.transaction().execute(async (trx) => {
      for (const { id, columns } of write.updates) {
        await trx
          .updateTable(table)
          .set({ ...columns, updated_at: now } as never)
          .where('id', '=', id)
          .execute();
      }
      for (const part of chunks(write.deleteLocks, IN_CHUNK)) {
        for (const l of part)
          await trx.deleteFrom('metadata_locks').where('entity_id', '=', l.entity_id).where('field', '=', l.field).execute();
      }
      for (const part of chunks(write.setLocks, 100)) {
        await trx
          .insertInto('metadata_locks')
          .values(
            part.map((l) => ({ ...l, held_by: l.held_by ?? 'person', source: l.source ?? null, entity_type: write.type, locked_at: now })),
          )
          .onConflict((oc) =>
            oc.columns(['entity_id', 'field']).doUpdateSet((eb) => ({
              file_value: eb.ref('excluded.file_value'),
              held_by: eb.ref('excluded.held_by'),
              source: eb.ref('excluded.source'),
            })),
          )
          .execute();
      }
      for (const part of chunks(write.history, 50)) await trx.insertInto('metadata_history').values(part).execute();
      for (const part of chunks(write.undone ?? [], IN_CHUNK)) {
        await trx.updateTable('metadata_history').set({ undone_at: now }).where('id', 'in', part).execute();
      }
    });
    if (++this.writes % 100 === 1) await this.prune();
  }

  async insertHistory(rows: readonly HistoryInsert[]): Promise<void> {
    for (const part of chunks(rows, 50)) await this.db.insertInto('metadata_history').values(part).execute();
  }

  /** Whether a cover entry names this image hash (the hash is hex: no LIKE wildcards in it). */
  async coverImageNamed(hash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('metadata_history')
      .select('id')
      .where('field', '=', 'cover')
      .where((eb) => eb.or([eb('before_value', 'like', `%${hash}%`), eb('after_value', 'like', `%${hash}%`)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Drops the oldest history beyond HISTORY_LIMIT entries. */
  async prune(): Promise<void> {
    const edge = await this.db
      .selectFrom('metadata_history')
      .select('seq')
      .orderBy('seq', 'desc')
      .offset(HISTORY_LIMIT)
      .limit(1)
      .executeTakeFirst();
    if (edge) await this.db.deleteFrom('metadata_history').where('seq', '<=', edge.seq).execute();
  }

  private historyQuery() {
    return this.db
      .selectFrom('metadata_history')
      .leftJoin('users', 'users.id', 'metadata_history.user_id')
      .selectAll('metadata_history')
      .select('users.username as username');
  }

  /** An entity's history, newest first. */
  async history(entityId: string, offset: number, limit: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const [count, rows] = await Promise.all([
      this.db
        .selectFrom('metadata_history')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('entity_id', '=', entityId)
        .executeTakeFirst(),
      this.historyQuery()
        .where('metadata_history.entity_id', '=', entityId)
        .orderBy('metadata_history.seq', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
    ]);
    return { total: Number(count?.n ?? 0), rows };
  }

  entry(id: string): Promise<HistoryRow | undefined> {
    return this.historyQuery().where('metadata_history.id', '=', id).executeTakeFirst();
  }

  group(groupId: string): Promise<HistoryRow[]> {
    return this.historyQuery().where('metadata_history.group_id', '=', groupId).orderBy('metadata_history.seq', 'desc').execute();
  }
}
