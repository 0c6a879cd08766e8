import type { HistoryGroup } from './history-rows.js';
import { historyRow, newGroup } from './history-rows.js';
import type { MetadataRepository } from './repository.js';
import type { EntityType } from './fields.js';

/**
 * Cover changes in the metadata history (field `cover`, values describing the cover), so that they are listed and
 * undone like any change. The covers feature writes through this (wired in the composition root).
 */
export class CoverHistoryLog {
  constructor(private readonly repo: MetadataRepository) {}

  async record(
    target: { kind: EntityType; id: string },
    change: { before: unknown; after: unknown; userId: string; group?: HistoryGroup },
  ): Promise<void> {
    const entry = change.group ?? newGroup();
    await this.repo.insertHistory([
      historyRow(
        target.kind,
        target.id,
        'cover',
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
