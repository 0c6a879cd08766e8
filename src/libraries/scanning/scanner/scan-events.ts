import { nowIso } from '../../../db/ids.js';
import type { EntityEvent, EntityEventName } from '../../../events/types.js';

/** An entity event of one library's scan, stamped now. */
export function entityEvent(libraryId: string, type: EntityEventName, seriesId: string, bookId?: string): EntityEvent {
  return { type, ...(bookId ? { book_id: bookId } : {}), series_id: seriesId, library_id: libraryId, timestamp: nowIso() };
}
