import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../events/bus.js';
import type { KosyncService } from './service.js';

/**
 * KOReader positions synced before their book was in the library are attached when a scan adds the book
 * (`book_created`) or computes its KOReader MD5 (`book_updated`: analysis, the backfill of older books), not only
 * at KOReader's next sync. Runs after the scan committed; a failure is logged and the next sync attaches it.
 */
export function attachKosyncOnBookEvents(bus: EventBus, kosync: KosyncService, log: FastifyBaseLogger): void {
  for (const event of ['book_created', 'book_updated'] as const) {
    bus.on(event, ({ book_id: bookId }) => {
      if (!bookId) return;
      kosync
        .attachPending(bookId)
        .catch((err: unknown) => log.warn({ err, bookId }, 'kosync: a waiting KOReader position could not be attached'));
    });
  }
}
