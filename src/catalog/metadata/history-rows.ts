import type { Insertable } from 'kysely';
import { newId, nowIso } from '../../db/ids.js';
import type { MetadataHistoryTable } from '../../db/tables/metadata.js';
import type { EntityType } from './fields.js';

/** Entry order: epoch ms × 1000 plus a counter, so entries of one write keep their order. */
export function seqStart(): () => number {
  const base = Date.now() * 1000;
  let i = 0;
  return () => base + i++;
}

/** The group a write's entries share: its id, time and order. */
export interface HistoryGroup {
  groupId: string;
  now: string;
  seq: () => number;
}

export function newGroup(): HistoryGroup {
  return { groupId: newId(), now: nowIso(), seq: seqStart() };
}

export function historyRow(
  type: EntityType,
  entityId: string,
  field: string,
  entry: {
    groupId: string;
    now: string;
    seq: () => number;
    userId: string | null;
    source?: 'person' | 'scan' | 'provider';
    /** A provider's entry in words ("AniList 21"). */
    sourceDetail?: string | null;
  },
  v: {
    before: unknown;
    after: unknown;
    beforeLocked: boolean;
    afterLocked: boolean;
    beforeFile: string | null;
    /** Who held the lock before, and a provider's source, for undo to put back. */
    beforeHolder?: { held_by: string; source: string | null } | null;
  },
): Insertable<MetadataHistoryTable> {
  return {
    id: newId(),
    seq: entry.seq(),
    group_id: entry.groupId,
    entity_type: type,
    entity_id: entityId,
    field,
    before_value: JSON.stringify(v.before ?? null),
    after_value: JSON.stringify(v.after ?? null),
    before_locked: v.beforeLocked ? 1 : 0,
    after_locked: v.afterLocked ? 1 : 0,
    before_file_value: v.beforeFile,
    source: entry.source ?? 'person',
    source_detail: entry.sourceDetail ?? null,
    before_held_by: v.beforeHolder?.held_by ?? null,
    before_source: v.beforeHolder?.source ?? null,
    user_id: entry.userId,
    undone_at: null,
    created_at: entry.now,
  };
}
