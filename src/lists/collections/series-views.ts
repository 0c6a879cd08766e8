import type { Caller } from '../../identity/index.js';
import type { SeriesService, SeriesView } from '../../catalog/index.js';

/**
 * The native views of these series for the caller, in the order given; series it may not see (or gone since the
 * ids were read) are left out. Lists of series chosen by id (a collection's page, the want-to-read shelf) show
 * them as GET /series/{id} does.
 */
export function seriesViews(series: SeriesService, caller: Caller, ids: readonly string[]): Promise<SeriesView[]> {
  return series.viewsOf(caller, ids);
}
