import type { PageRequest } from '../../http/pagination.js';
import { type Caller, scopeFor } from '../../identity/index.js';
import type { ListsDeps } from '../collections/service.js';
import { seriesViews } from '../collections/series-views.js';
import type { SeriesView } from '../../catalog/index.js';
import { WantToReadRepository } from './repository.js';

/** The last time handed out by `putTime`. */
let lastPut = 0;

/**
 * Now, as an ISO time, later than any this process handed out before: the shelf lists newest first, and two series
 * put in the same millisecond keep the order they were put in.
 */
function putTime(): string {
  lastPut = Math.max(Date.now(), lastPut + 1);
  return new Date(lastPut).toISOString();
}

/**
 * Each user's "want to read" shelf of series: private to the user, newest first. A series the user may no longer
 * see (access rules changed, or it was deleted) drops out of the shelf while it stays hidden, and comes back with
 * the time it was put there if it shows again.
 */
export class WantToReadService {
  constructor(
    private readonly repo: WantToReadRepository,
    readonly deps: ListsDeps,
  ) {}

  async list(caller: Caller, page: PageRequest): Promise<{ total: number; data: SeriesView[] }> {
    const { total, ids } = await this.repo.list(caller.user.id, scopeFor(caller), page.offset, page.pageSize);
    return { total, data: await seriesViews(this.deps.series, caller, ids) };
  }

  /** Puts a series the caller sees on its shelf (404 otherwise); putting it again changes nothing. */
  async add(caller: Caller, seriesId: string): Promise<void> {
    await this.deps.access.series(caller, seriesId);
    await this.repo.add(caller.user.id, seriesId, putTime());
  }

  /** Takes a series off the caller's shelf; one not there is no error. */
  async remove(caller: Caller, seriesId: string): Promise<void> {
    await this.repo.remove(caller.user.id, seriesId);
  }
}
