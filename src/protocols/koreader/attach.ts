import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../events/bus.js';
import type { KosyncService } from './service.js';

/**
 * KOReader positions synced before their book was in the library are attached when a scan adds the book
 * (`book_created`) or computes its KOReader MD5 (`book_updated`: analysis, the backfill of older books), not only
 * at KOReader's next sync. Runs after the scan committed; a failure is logged and the next sync attaches it.
 *
 * A scan publishes its events a batch (a few hundred books) at a time: they are gathered until the event loop
 * turns and looked at together, so that a library with no position waiting (nearly always) costs one query
 * per batch rather than two lookups per book.
 */
export function attachKosyncOnBookEvents(bus: EventBus, kosync: KosyncService, log: FastifyBaseLogger): void {
  let gathered = new Set<string>();
  const flush = () => {
    const bookIds = [...gathered];
    gathered = new Set();
    kosync
      .attachPendingMany(bookIds)
      .catch((err: unknown) => log.warn({ err, bookIds: bookIds.length }, 'kosync: a waiting KOReader position could not be attached'));
  };
  for (const event of ['book_created', 'book_updated'] as const) {
    bus.on(event, ({ book_id: bookId }) => {
      if (!bookId) return;
      if (gathered.size === 0) setImmediate(flush);
      gathered.add(bookId);
    });
  }
}
