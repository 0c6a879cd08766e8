import { nowIso } from '../../../db/ids.js';
import type { EventBus } from '../../../events/bus.js';
import type { EntityEvent } from '../../../events/types.js';
import type { ScanRepository } from './repository.js';
import { LockedMetadata } from './locked-metadata.js';
import { entityEvent } from './scan-events.js';
import { aggregateSeries } from './series-rules.js';

/**
 * The series one scan touched, and their refresh once its books are written: name, aggregated metadata and
 * counts recomputed from their present books; a series left empty is soft-deleted.
 */
export class SeriesRefresh {
  private readonly touched = new Set<string>();
  /** Created by this scan: announced by `series_created`, so their first aggregate is no `series_updated`. */
  private readonly created = new Set<string>();

  constructor(
    private readonly repo: ScanRepository,
    private readonly bus: EventBus,
    private readonly libraryId: string,
  ) {}

  touch(seriesId: string): void {
    this.touched.add(seriesId);
  }

  markCreated(seriesId: string): void {
    this.created.add(seriesId);
  }

  async run(): Promise<void> {
    if (this.touched.size === 0) return;
    const ids = [...this.touched];
    const [rows, books, locks] = await Promise.all([
      this.repo.seriesRows(ids),
      this.repo.presentBooksOfSeries(ids),
      this.repo.locksOf(ids),
    ]);
    // Fields a person locked keep their value; the scan's goes to the lock (decision 032).
    const locked = new LockedMetadata('series', locks);
    const booksBySeries = new Map<string, typeof books>();
    for (const b of books) {
      const list = booksBySeries.get(b.series_id) ?? [];
      list.push(b);
      booksBySeries.set(b.series_id, list);
    }
    const now = nowIso();
    const updates: { id: string; changes: Record<string, unknown> }[] = [];
    const events: EntityEvent[] = [];
    for (const row of rows) {
      const present = booksBySeries.get(row.id) ?? [];
      const aggregate = locked.keepLocked(row.id, { ...aggregateSeries(row, present) });
      const changes: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(aggregate)) if ((row as unknown as Record<string, unknown>)[k] !== v) changes[k] = v;
      if (!this.created.has(row.id) && present.length > 0) locked.record(row.id, row as unknown as Record<string, unknown>, changes);
      if (present.length === 0 && row.deleted_at === null) {
        changes.deleted_at = now;
        events.push(entityEvent(this.libraryId, 'series_deleted', row.id));
      } else if (Object.keys(changes).length > 0 && !this.created.has(row.id)) {
        events.push(entityEvent(this.libraryId, 'series_updated', row.id));
      }
      if (Object.keys(changes).length > 0) updates.push({ id: row.id, changes: { ...changes, updated_at: now } });
    }
    await this.repo.updateSeries(updates, locked.writes);
    for (const e of events) this.bus.publish(e.type, e);
  }
}
