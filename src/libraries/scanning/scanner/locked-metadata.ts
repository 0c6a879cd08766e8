import { newId, nowIso } from '../../../db/ids.js';
import { changedFields, type EntityType, historyRow, seqStart, withoutLocked } from '../../../catalog/index.js';
import type { ScanMetadataWrites } from './repository.js';

type Row = Record<string, unknown>;

/**
 * What a scan does to metadata a person edited (decision 032): a locked field keeps the person's value (its
 * column leaves the changes) while its lock takes the files' new value, so that unlocking gives it back; every
 * unlocked field the scan changes on an entity already in the catalog is recorded in the history as `scan`.
 */
export class LockedMetadata {
  readonly writes: ScanMetadataWrites = { lockValues: [], history: [] };
  private readonly entry = { groupId: newId(), now: nowIso(), seq: seqStart(), userId: null, source: 'scan' as const };

  constructor(
    private readonly type: EntityType,
    private readonly locks: ReadonlyMap<string, ReadonlyMap<string, string>>,
  ) {}

  /** The changes without the locked fields' columns. */
  keepLocked(id: string, changes: Row): Row {
    const locked = this.locks.get(id);
    if (!locked || locked.size === 0) return changes;
    const out = withoutLocked(this.type, changes, new Set(locked.keys()));
    for (const [field, value] of out.fileValues) {
      const json = JSON.stringify(value ?? null);
      if (locked.get(field) !== json) this.writes.lockValues.push({ entity_id: id, field, file_value: json });
    }
    return out.changes;
  }

  /** Records the editable fields these (already lock-free) changes alter on the row as it is now. */
  record(id: string, current: Row, changes: Row): void {
    for (const c of changedFields(this.type, current, changes)) {
      this.writes.history.push(
        historyRow(this.type, id, c.field, this.entry, {
          before: c.before,
          after: c.after,
          beforeLocked: false,
          afterLocked: false,
          beforeFile: null,
        }),
      );
    }
  }
}
