import type { Updateable } from 'kysely';
import { nowIso } from '../../../db/ids.js';
import type { BooksTable } from '../../../db/tables/catalog.js';
import type { EventBus } from '../../../events/bus.js';
import type { EntityEvent, ScanCounters } from '../../../events/types.js';
import { LockedMetadata } from './locked-metadata.js';
import type { DecisionRepository, FileDecision } from './decisions.js';
import type { BookInsert, ScanRepository, SeriesInsert } from './repository.js';

/** A change to a book already in the catalog, with what to announce and count once it is written. */
export interface PendingUpdate {
  id: string;
  changes: Updateable<BooksTable>;
  /** Deep scans: drop the update when it changes nothing, and count it as updated only when it does. */
  compare: boolean;
  events: EntityEvent[];
  counter: 'books_updated' | 'books_restored' | null;
}

/** Rows staged for one transaction, and the events to publish once it has committed. */
export interface StagedBatch {
  newSeries: SeriesInsert[];
  restoreSeries: string[];
  insertBooks: BookInsert[];
  updates: PendingUpdate[];
  events: EntityEvent[];
  /** What was decided about each file, for the explainer (written after the batch). */
  decisions: FileDecision[];
  /** Files staged (a restored or moved book counts as one, as does a new one). */
  size: number;
}

export function emptyBatch(): StagedBatch {
  return { newSeries: [], restoreSeries: [], insertBooks: [], updates: [], events: [], decisions: [], size: 0 };
}

/**
 * Writes staged batches one transaction at a time, in order, while analysis goes on; publishes each batch's
 * events and counts its updates only once it has committed.
 */
export class BatchWriter {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: ScanRepository,
    private readonly bus: EventBus,
    private readonly counters: ScanCounters,
    private readonly decisions?: DecisionRepository,
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {}

  /** Queues a batch behind those being written; resolves (or rejects) when it and those before it are written. */
  write(batch: StagedBatch): Promise<void> {
    if (batch.size === 0 && batch.newSeries.length === 0) return this.writing;
    this.writing = this.writing.then(() => this.commit(batch));
    return this.writing;
  }

  /** Resolves once every queued write has finished, whether it succeeded or not. */
  settled(): Promise<void> {
    return this.writing.catch(() => undefined);
  }

  private async commit(batch: StagedBatch): Promise<void> {
    let updates = batch.updates;
    // Fields a person locked keep their value; the scan's goes to the lock (decision 032).
    const locked = new LockedMetadata('book', updates.length > 0 ? await this.repo.locksOf(updates.map((u) => u.id)) : new Map());
    for (const u of updates) u.changes = locked.keepLocked(u.id, u.changes) as Updateable<BooksTable>;
    const compared = updates.filter((u) => u.compare);
    if (compared.length > 0) {
      const current = await this.repo.currentBookValues(compared.map((u) => u.id));
      updates = updates.filter((u) => {
        if (!u.compare) return true;
        const row = current.get(u.id);
        const changed = !row || Object.entries(u.changes).some(([k, v]) => k !== 'updated_at' && k !== 'analyzed_at' && row[k] !== v);
        if (!changed) this.counters.books_unchanged++;
        else if (row) locked.record(u.id, row, u.changes);
        return changed;
      });
    }
    await this.repo.applyBatch(
      {
        newSeries: batch.newSeries,
        restoreSeries: batch.restoreSeries,
        insertBooks: batch.insertBooks,
        updateBooks: updates.map((u) => ({ id: u.id, changes: u.changes })),
        metadata: locked.writes,
      },
      nowIso(),
    );
    // The explainer's record is not the catalog: a failure to write it is logged, and the scan goes on.
    await this.decisions
      ?.record(batch.decisions)
      .catch((err: unknown) => this.log?.warn({ err }, 'scan: decisions for the explainer not recorded'));
    for (const u of updates) if (u.counter) this.counters[u.counter]++;
    for (const e of batch.events) this.bus.publish(e.type, e);
    for (const u of updates) for (const e of u.events) this.bus.publish(e.type, e);
  }
}
