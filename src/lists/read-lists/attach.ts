import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../../events/bus.js';

/** What filling read-list gaps needs (ReadListsService). */
export interface ReadListGaps {
  fillMissing(bookIds: readonly string[]): Promise<number>;
}

/**
 * Read-list entries waiting for a book (from a CBL import) take it when a scan adds the book (`book_created`, also
 * a restored one) or changes it (`book_updated`: a corrected number or series). Runs after the scan's batch
 * committed. A scan publishes its events a batch at a time: they are gathered until the event loop turns and
 * looked at together, which costs one query when no entry waits (nearly always).
 */
export function fillReadListsOnBookEvents(bus: EventBus, readLists: ReadListGaps, log: Pick<FastifyBaseLogger, 'warn'>): void {
  let gathered = new Set<string>();
  const flush = () => {
    const bookIds = [...gathered];
    gathered = new Set();
    readLists
      .fillMissing(bookIds)
      .catch((err: unknown) => log.warn({ err, bookIds: bookIds.length }, 'read lists: waiting entries could not be filled'));
  };
  for (const event of ['book_created', 'book_updated'] as const) {
    bus.on(event, ({ book_id: bookId }) => {
      if (!bookId) return;
      if (gathered.size === 0) setImmediate(flush);
      gathered.add(bookId);
    });
  }
}
