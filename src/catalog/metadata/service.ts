import { newId, nowIso } from '../../db/ids.js';
import type { EventBus } from '../../events/bus.js';
import type { EntityEventName } from '../../events/types.js';
import { conflict, forbidden, notFound } from '../../http/errors.js';
import type { Caller, InSeries } from '../../identity/index.js';
import { fieldDefs, impliedValues, sameValue, type EntityType } from './fields.js';
import { historyRow, seqStart, type HistoryGroup } from './history-rows.js';
import type { HistoryRow, MetadataRepository, MetadataWrite } from './repository.js';
import type { WriteBackReport } from './write-back.js';

type Row = Record<string, unknown>;

/** One change to apply to every entity named: values to set, words to add to or remove from lists, and locks. */
export interface MetadataChange {
  set: Row;
  add?: Partial<Record<string, string[]>>;
  remove?: Partial<Record<string, string[]>>;
  /** Field → locked. A field set without an entry here is locked. */
  locks?: Partial<Record<string, boolean>>;
}

export interface HistoryEntry {
  id: string;
  group_id: string;
  entity_type: EntityType;
  entity_id: string;
  field: string;
  before: unknown;
  after: unknown;
  before_locked: boolean;
  after_locked: boolean;
  source: 'person' | 'scan' | 'provider';
  /** A provider's entry in words ("AniList 21"), for `provider` entries. */
  source_detail: string | null;
  user_id: string | null;
  username: string | null;
  created_at: string;
  undone_at: string | null;
}

/** Puts back a cover a history entry describes (catalog/covers), as part of an undo's group. */
export interface CoverRestorer {
  restore(caller: Caller, target: { kind: EntityType; id: string }, value: unknown, group: HistoryGroup): Promise<void>;
}

/** Sharing-label entries (field `sharing_labels`) are undone by the series feature. */
export interface SharingLabelsRestorer {
  restore(caller: Caller, seriesId: string, labels: string[], group: HistoryGroup): Promise<void>;
}

/** Writes edited fields back into files (write-back.ts); what it does is part of the edit's answer. */
export interface WriteBackRequester {
  /** `libraryIds`: the libraries of the edited entities (nothing more is read when none of them writes back). */
  request(type: EntityType, edited: ReadonlyMap<string, readonly string[]>, libraryIds: readonly string[]): Promise<WriteBackReport | null>;
}

export interface MetadataDeps {
  /** Cover entries (field `cover`) are undone by the covers feature. */
  covers: CoverRestorer;
  sharingLabels: SharingLabelsRestorer;
  repo: MetadataRepository;
  /** Of rows fetched by id, those the caller sees (identity/access). */
  visible: (caller: Caller, rows: readonly InSeries[]) => Promise<InSeries[]>;
  bus: EventBus;
  writeBack?: WriteBackRequester;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const WRITE_PERMISSION = { series: 'series-write', book: 'books-write' } as const;

/**
 * Metadata editing (decision 032): a person's values beside the files', per-field locks, bulk changes in one
 * transaction, and a history whose entries (a request's as a group) can be undone.
 */
export class MetadataService {
  constructor(private readonly deps: MetadataDeps) {}

  /** The present rows of these entities, all visible to the caller, or 404 (hidden and absent alike). */
  private async require(caller: Caller, type: EntityType, ids: readonly string[]): Promise<Row[]> {
    const rows = await this.deps.repo.rows(type, ids);
    const asAccess = rows.map((r) => ({ ...r, series_id: type === 'series' ? r.id : r.series_id }) as Row & InSeries);
    const seen = await this.deps.visible(caller, asAccess);
    const wanted = new Set(ids);
    if (seen.length !== wanted.size) {
      const found = new Set(seen.map((r) => (r as unknown as Row).id as string));
      throw notFound(type === 'series' ? 'Series' : 'Book', { missing: [...wanted].filter((id) => !found.has(id)).slice(0, 20) });
    }
    return seen as unknown as Row[];
  }

  /** Applies one change to every entity named, in one transaction and one history group. */
  async edit(
    caller: Caller,
    type: EntityType,
    ids: readonly string[],
    change: MetadataChange,
  ): Promise<{ group_id: string; updated: number; write_back: WriteBackReport | null }> {
    const { group_id, updated, write_back } = await this.editEach(caller, type, new Map(ids.map((id) => [id, change])));
    return { group_id, updated, write_back };
  }

  /**
   * Applies a change of its own to each entity (id → change: a renumbering), in one transaction and one history
   * group. `entry_id` is one entry of that group (null when nothing changed): undoing it undoes the whole group.
   */
  async editEach(
    caller: Caller,
    type: EntityType,
    changes: ReadonlyMap<string, MetadataChange>,
  ): Promise<{ group_id: string; updated: number; entry_id: string | null; write_back: WriteBackReport | null }> {
    const rows = await this.require(caller, type, [...changes.keys()]);
    const ids = rows.map((r) => r.id as string);
    const [locks, holders] = await Promise.all([this.deps.repo.locks(ids), this.deps.repo.holders(ids)]);
    const groupId = newId();
    const write: MetadataWrite = { type, updates: [], setLocks: [], deleteLocks: [], history: [] };
    const now = nowIso();
    const seq = seqStart();
    for (const row of rows) {
      const change = changes.get(row.id as string)!;
      const id = row.id as string;
      this.plan(type, row, locks.get(id) ?? new Map(), holders.get(id) ?? new Map(), change, write, {
        groupId,
        now,
        seq,
        userId: caller.user.id,
      });
    }
    await this.commit(type, rows, write, now);
    return {
      group_id: groupId,
      updated: write.updates.length,
      entry_id: write.history[0]?.id ?? null,
      write_back: await this.writeBack(type, rows, write),
    };
  }

  /**
   * An online database's values for one entity (identification, decision 045): fields a person locked are left as
   * they are and named in `kept`; the others take the provider's value, held for it (scans keep it, the next
   * identification may replace it) with its source in words, in one history group that Undo reverses whole.
   */
  async applyFromProvider(
    /** Null: the server itself (an identification task), which sees every series. */
    caller: Caller | null,
    type: EntityType,
    id: string,
    values: Row,
    source: { detail: string; label: string },
    /** The history group to join (a series and its books, applied together, are undone together). */
    group?: HistoryGroup,
  ): Promise<{ group_id: string; entry_id: string | null; applied: string[]; kept: string[] }> {
    const [row] = caller ? await this.require(caller, type, [id]) : await this.deps.repo.rows(type, [id]);
    if (!row) throw notFound(type === 'series' ? 'Series' : 'Book');
    const [locks, holders] = await Promise.all([this.deps.repo.locks([id]), this.deps.repo.holders([id])]);
    const fileValues = locks.get(id) ?? new Map<string, string>();
    const held = holders.get(id) ?? new Map<string, { held_by: string; source: string | null }>();
    const defs = fieldDefs(type);
    const groupId = group?.groupId ?? newId();
    const now = group?.now ?? nowIso();
    const seq = group?.seq ?? seqStart();
    const write: MetadataWrite = { type, updates: [], setLocks: [], deleteLocks: [], history: [] };
    const columns: Row = {};
    const applied: string[] = [];
    const kept: string[] = [];
    const current = { ...row };
    for (const [field, value] of Object.entries(values)) {
      const def = defs[field];
      if (!def) continue;
      const holder = held.get(field) ?? null;
      if (holder?.held_by === 'person') {
        kept.push(field);
        continue;
      }
      const before = def.fromRow(current);
      const after = def.fromRow({ ...current, ...def.toColumns(value) });
      if (sameValue(before, after)) continue;
      Object.assign(columns, def.toColumns(after));
      Object.assign(current, def.toColumns(after));
      const beforeFile = fileValues.get(field) ?? null;
      write.setLocks.push({
        entity_id: id,
        field,
        file_value: beforeFile ?? JSON.stringify(before),
        held_by: 'provider',
        source: source.label,
      });
      write.history.push(
        historyRow(
          type,
          id,
          field,
          { groupId, now, seq, userId: caller?.user.id ?? null, source: 'provider', sourceDetail: source.detail },
          { before, after, beforeLocked: beforeFile !== null, afterLocked: true, beforeFile, beforeHolder: holder },
        ),
      );
      applied.push(field);
    }
    if (write.history.length > 0) write.updates.push({ id, columns });
    await this.commit(type, [row], write, now);
    return { group_id: groupId, entry_id: write.history[0]?.id ?? null, applied, kept };
  }

  /** The first entry of a history group (what Undo is asked with), or null when it has none. */
  async firstEntryOf(groupId: string): Promise<string | null> {
    return (await this.deps.repo.group(groupId))[0]?.id ?? null;
  }

  /** Has the values this write changed written into files, where the library asks for it. */
  private async writeBack(type: EntityType, rows: readonly Row[], write: MetadataWrite): Promise<WriteBackReport | null> {
    if (!this.deps.writeBack) return null;
    const edited = new Map<string, string[]>();
    for (const h of write.history) {
      if (h.before_value === h.after_value) continue; // a lock alone changes no file
      edited.set(h.entity_id, [...(edited.get(h.entity_id) ?? []), h.field]);
    }
    if (edited.size === 0) return null;
    return this.deps.writeBack.request(type, edited, [...new Set(rows.map((r) => r.library_id as string))]);
  }

  private plan(
    type: EntityType,
    row: Row,
    locks: ReadonlyMap<string, string>,
    holders: ReadonlyMap<string, { held_by: string; source: string | null }>,
    change: MetadataChange,
    write: MetadataWrite,
    entry: { groupId: string; now: string; seq: () => number; userId: string },
  ): void {
    const defs = fieldDefs(type);
    const set: Row = { ...change.set };
    for (const [field, words] of Object.entries(change.add ?? {})) {
      const current = (set[field] ?? defs[field]!.fromRow(row)) as string[];
      const known = new Set(current.map((w) => w.toLocaleLowerCase('en')));
      set[field] = [...current, ...(words ?? []).filter((w) => !known.has(w.toLocaleLowerCase('en')))];
    }
    for (const [field, words] of Object.entries(change.remove ?? {})) {
      const gone = new Set((words ?? []).map((w) => w.toLocaleLowerCase('en')));
      set[field] = ((set[field] ?? defs[field]!.fromRow(row)) as string[]).filter((w) => !gone.has(w.toLocaleLowerCase('en')));
    }
    const implied = impliedValues(type, change.set, row);
    const lockOf = (field: string): boolean | undefined =>
      change.locks?.[field] ?? (field in implied ? change.locks?.[type === 'book' ? 'number' : 'title'] : undefined);
    Object.assign(set, implied);
    const columns: Row = {};
    const id = row.id as string;
    const entries = write.history.length;
    for (const field of new Set([...Object.keys(set), ...Object.keys(change.locks ?? {})])) {
      const def = defs[field]!;
      const before = def.fromRow(row);
      const beforeFile = locks.get(field) ?? null;
      const beforeLocked = beforeFile !== null;
      const wanted = lockOf(field);
      let after = before;
      let afterLocked = beforeLocked;
      let fileValue = beforeFile;
      if (field in set) {
        after = def.fromRow({ ...row, ...def.toColumns(set[field]) });
        afterLocked = wanted ?? true;
        if (!beforeLocked) fileValue = JSON.stringify(before);
      } else if (wanted === true && !beforeLocked) {
        afterLocked = true;
        fileValue = JSON.stringify(before);
      } else if (wanted === false && beforeLocked) {
        afterLocked = false;
        after = parse(beforeFile);
      }
      const changed = !sameValue(before, after);
      const holder = holders.get(field) ?? null;
      // A provider's value a person now sets or locks becomes the person's (identification leaves it alone then).
      const takenOver = afterLocked && holder?.held_by === 'provider' && (field in set || wanted === true);
      if (!changed && afterLocked === beforeLocked && !takenOver) continue;
      if (changed) Object.assign(columns, def.toColumns(after));
      if ((afterLocked && !beforeLocked) || takenOver) write.setLocks.push({ entity_id: id, field, file_value: fileValue! });
      if (!afterLocked && beforeLocked) write.deleteLocks.push({ entity_id: id, field });
      write.history.push(
        historyRow(type, id, field, entry, {
          before,
          after,
          beforeLocked,
          afterLocked,
          beforeFile,
          beforeHolder: holder,
        }),
      );
    }
    if (write.history.length > entries) write.updates.push({ id, columns });
  }

  private async commit(type: EntityType, rows: readonly Row[], write: MetadataWrite, now: string): Promise<void> {
    if (write.history.length === 0) return;
    await this.deps.repo.apply(write, now);
    const changed = new Set(write.history.map((h) => h.entity_id));
    const name: EntityEventName = type === 'series' ? 'series_updated' : 'book_updated';
    for (const row of rows) {
      if (!changed.has(row.id as string)) continue;
      const ids = type === 'series' ? { series_id: row.id as string } : { book_id: row.id as string, series_id: row.series_id as string };
      this.deps.bus.publish(name, { type: name, ...ids, library_id: row.library_id as string, timestamp: now });
    }
  }

  /** An entity's history, newest first (404 when the caller may not see it). */
  async history(
    caller: Caller,
    type: EntityType,
    id: string,
    page: { offset: number; limit: number },
  ): Promise<{ total: number; data: HistoryEntry[] }> {
    await this.require(caller, type, [id]);
    const { total, rows } = await this.deps.repo.history(id, page.offset, page.limit);
    return { total, data: rows.map(entryView) };
  }

  /**
   * Undoes a history entry with the rest of its group (the request that made it, a bulk change as a whole), or
   * that entry alone: every value and lock goes back to what it was before, as a new group of entries.
   */
  async undo(
    caller: Caller,
    entryId: string,
    onlyEntry: boolean,
  ): Promise<{ group_id: string; undone: HistoryEntry[]; write_back: WriteBackReport | null }> {
    if (!caller.permissions.has('series-write') && !caller.permissions.has('books-write'))
      throw forbidden('Undoing a change needs series-write or books-write');
    const entry = await this.deps.repo.entry(entryId);
    if (!entry) throw notFound('History entry');
    const entries = (onlyEntry ? [entry] : await this.deps.repo.group(entry.group_id)).filter((e) => e.undone_at === null);
    // A group may hold a series and its books (an identification): each kind is checked, then undone, in one new group.
    const types = entries.length > 0 ? [...new Set(entries.map((e) => e.entity_type))] : [entry.entity_type];
    const checked: Array<{ type: EntityType; entries: HistoryRow[]; rows: Row[] }> = [];
    for (const type of types) {
      const own = entries.filter((e) => e.entity_type === type);
      const ids = [...new Set(own.map((e) => e.entity_id))];
      const rows = await this.require(caller, type, ids.length > 0 ? ids : [entry.entity_id]);
      if (!caller.permissions.has(WRITE_PERMISSION[type])) throw forbidden(`Undoing a ${type} change needs ${WRITE_PERMISSION[type]}`);
      checked.push({ type, entries: own, rows });
    }
    if (entries.length === 0) throw conflict('Already undone', { entry_id: entryId });
    const group = { groupId: newId(), now: nowIso(), seq: seqStart() };
    let writeBack: WriteBackReport | null = null;
    for (const part of checked) {
      const report = await this.undoPart(caller, part.type, part.entries, part.rows, group);
      writeBack ??= report;
    }
    return {
      group_id: group.groupId,
      undone: entries.map((e) => ({ ...entryView(e), undone_at: group.now })),
      write_back: writeBack,
    };
  }

  /** Undoes entries of one kind (series or books) as part of the new group. */
  private async undoPart(
    caller: Caller,
    type: EntityType,
    entries: readonly HistoryRow[],
    rows: Row[],
    { groupId, now, seq }: HistoryGroup,
  ): Promise<WriteBackReport | null> {
    const ids = [...new Set(entries.map((e) => e.entity_id))];
    const byId = new Map(rows.map((r) => [r.id as string, { ...r }]));
    const [locks, holders] = await Promise.all([this.deps.repo.locks(ids), this.deps.repo.holders(ids)]);
    const write: MetadataWrite = { type, updates: [], setLocks: [], deleteLocks: [], history: [], undone: entries.map((e) => e.id) };
    const columnsById = new Map<string, Row>();
    const defs = fieldDefs(type);
    // Newest first, so that several changes of one field end at the oldest "before".
    for (const e of entries) {
      if (e.field === 'cover') {
        await this.deps.covers.restore(caller, { kind: type, id: e.entity_id }, parse(e.before_value), { groupId, now, seq });
        continue;
      }
      if (e.field === 'sharing_labels') {
        const labels = parse(e.before_value);
        const restored = Array.isArray(labels) ? labels.filter((l): l is string => typeof l === 'string') : [];
        await this.deps.sharingLabels.restore(caller, e.entity_id, restored, { groupId, now, seq });
        continue;
      }
      const row = byId.get(e.entity_id)!;
      const def = defs[e.field];
      if (!def) continue;
      const entityLocks = locks.get(e.entity_id) ?? new Map<string, string>();
      const before = def.fromRow(row);
      const beforeFile = entityLocks.get(e.field) ?? null;
      const target = parse(e.before_value);
      const targetLocked = Number(e.before_locked) === 1;
      const columns = def.toColumns(target);
      Object.assign(row, columns);
      columnsById.set(e.entity_id, { ...columnsById.get(e.entity_id), ...columns });
      write.deleteLocks = write.deleteLocks.filter((l) => !(l.entity_id === e.entity_id && l.field === e.field));
      write.setLocks = write.setLocks.filter((l) => !(l.entity_id === e.entity_id && l.field === e.field));
      const holder = holders.get(e.entity_id)?.get(e.field) ?? null;
      if (targetLocked) {
        const file = e.before_file_value ?? beforeFile ?? JSON.stringify(before);
        write.setLocks.push({
          entity_id: e.entity_id,
          field: e.field,
          file_value: file,
          held_by: e.before_held_by === 'provider' ? 'provider' : 'person',
          source: e.before_held_by === 'provider' ? e.before_source : null,
        });
        entityLocks.set(e.field, file);
      } else if (entityLocks.has(e.field)) {
        write.deleteLocks.push({ entity_id: e.entity_id, field: e.field });
        entityLocks.delete(e.field);
      }
      locks.set(e.entity_id, entityLocks);
      write.history.push(
        historyRow(
          type,
          e.entity_id,
          e.field,
          { groupId, now, seq, userId: caller.user.id },
          {
            before,
            after: def.fromRow(row),
            beforeLocked: beforeFile !== null,
            afterLocked: targetLocked,
            beforeFile,
            beforeHolder: holder,
          },
        ),
      );
    }
    write.updates = [...columnsById].map(([id, columns]) => ({ id, columns }));
    await this.deps.repo.apply(write, now);
    const changed = new Set(write.history.map((h) => h.entity_id));
    const name: EntityEventName = type === 'series' ? 'series_updated' : 'book_updated';
    for (const row of rows) {
      if (!changed.has(row.id as string)) continue;
      const idFields =
        type === 'series' ? { series_id: row.id as string } : { book_id: row.id as string, series_id: row.series_id as string };
      this.deps.bus.publish(name, { type: name, ...idFields, library_id: row.library_id as string, timestamp: now });
    }
    return this.writeBack(type, rows, write);
  }
}

function entryView(e: HistoryRow): HistoryEntry {
  return {
    id: e.id,
    group_id: e.group_id,
    entity_type: e.entity_type,
    entity_id: e.entity_id,
    field: e.field,
    before: parse(e.before_value),
    after: parse(e.after_value),
    before_locked: Number(e.before_locked) === 1,
    after_locked: Number(e.after_locked) === 1,
    source: e.source === 'scan' || e.source === 'provider' ? e.source : 'person',
    source_detail: e.source_detail,
    user_id: e.user_id,
    username: e.username,
    created_at: e.created_at,
    undone_at: e.undone_at,
  };
}
