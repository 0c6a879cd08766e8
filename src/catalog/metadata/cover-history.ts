import { type HistoryGroup, historyRow, newGroup } from './history-rows.js';
import type { MetadataRepository } from './repository.js';
import type { EntityType } from './fields.js';

/** A change of a field kept outside the metadata columns (no lock): a cover, a series' sharing labels. */
export interface SideFieldChange {
  before: unknown;
  after: unknown;
  userId: string;
  group?: HistoryGroup;
}

/**
 * Changes of fields the covers and series features keep (field `cover`, values describing the cover; field
 * `sharing_labels`, the sorted labels) in the metadata history, so that they are listed and undone like any change.
 * Those features write through this (wired in the composition root); MetadataService.undo hands them back.
 */
export class CoverHistoryLog {
  constructor(private readonly repo: MetadataRepository) {}

  record(target: { kind: EntityType; id: string }, change: SideFieldChange): Promise<void> {
    return this.recordField('cover', target, change);
  }

  async recordField(field: 'cover' | 'sharing_labels', target: { kind: EntityType; id: string }, change: SideFieldChange): Promise<void> {
    const entry = change.group ?? newGroup();
    await this.repo.insertHistory([
      historyRow(
        target.kind,
        target.id,
        field,
        { ...entry, userId: change.userId },
        {
          before: change.before,
          after: change.after,
          beforeLocked: false,
          afterLocked: false,
          beforeFile: null,
        },
      ),
    ]);
  }

  /** Whether a history entry names this chosen image: it is kept while one does, so that undo can restore it. */
  namesImage(hash: string): Promise<boolean> {
    return this.repo.coverImageNamed(hash);
  }
}
