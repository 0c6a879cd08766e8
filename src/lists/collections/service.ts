import type { Updateable } from 'kysely';
import { newId, nowIso } from '../../db/ids.js';
import type { CollectionsTable } from '../../db/tables/lists.js';
import type { EventBus } from '../../events/bus.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import type { ImageLookup } from '../../http/send-image.js';
import { type AccessService, type Caller, scopeFor } from '../../identity/index.js';
import type { BooksService, SeriesService, SeriesView } from '../../catalog/index.js';
import { listNameKey, requireSharedRight, viewerOf } from '../core/lists.js';
import { CollectionsRepository, type CollectionViewRow, type Member } from './repository.js';
import type { CollectionCreate, CollectionSeriesAdd, CollectionSeriesOrder, CollectionUpdate, CollectionView } from './schemas.js';
import { seriesViews } from './series-views.js';

/** What the lists features are built from (the composition root fills it in). */
export interface ListsDeps {
  access: AccessService;
  series: SeriesService;
  books: BooksService;
  bus: EventBus;
}

/**
 * The member list after the caller replaced the series it sees with `next`: members it does not see (hidden
 * from it, or soft-deleted) keep their places, the caller's series fill the other places in the order given, and
 * what is left over goes at the end. For a caller who sees every member this is `next`.
 */
export function keepingHidden(current: readonly Member[], next: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  for (const m of current) {
    if (!m.seen) out.push(m.series_id);
    else if (i < next.length) out.push(next[i++]!);
  }
  while (i < next.length) out.push(next[i++]!);
  return out;
}

/** Why a shared collection's change was refused, after the missing permission. */
const SHARED = 'the collection is shared with everyone';

/** What a change of a collection changes in its row; null: nothing changed. */
type RowChange = Updateable<CollectionsTable> | null;

/**
 * Collections: named groups of series, private to a user or shared.
 *
 * Who sees what:
 * - A private collection is its owner's alone: every other user, administrators included, gets the 404 of an
 *   id that does not exist. A shared one (owner null) is everyone's who may browse collections (series-read or
 *   collections-read).
 * - Inside a collection a viewer sees only the series it may see (docs/household-access.md): its series, count,
 *   cover and member ids leave the others out. A shared collection that has series, none of which the viewer may
 *   see, is hidden from that viewer altogether (lists and by id: 404); an empty one is not (it shows nothing).
 *   A user's own collection always shows, even when the rules now hide all its series.
 * - Changes by a viewer who does not see every member act on what it sees: the hidden members keep their places
 *   and stay (so neither their presence nor their removal depends on who edits).
 *
 * Who changes what (docs/decisions/040): one's own collections are changed and deleted by whoever may browse
 * collections (the routes' permission); a shared collection (creating one, sharing or unsharing one, any change of
 * one) needs collections-write, deleting one collections-delete.
 * A person's change of a collection scans made (`source` other than `user`) marks it `edited`.
 */
export class CollectionsService {
  constructor(
    private readonly repo: CollectionsRepository,
    readonly deps: ListsDeps,
  ) {}

  private async views(caller: Caller, rows: readonly CollectionViewRow[]): Promise<CollectionView[]> {
    const members = await this.repo.seriesIdsOf(
      rows.map((r) => r.id),
      scopeFor(caller),
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      summary: r.summary,
      ordered: r.ordered === 1,
      shared: r.owner_user_id === null,
      owner_user_id: r.owner_user_id,
      series_count: r.series_count,
      series_ids: members.get(r.id) ?? [],
      cover_series_id: r.visible_cover,
      thumbnail_series_id: r.visible_cover ?? r.first_series,
      source: r.source,
      edited: r.edited === 1,
      created_at: r.created_at,
      updated_at: r.updated_at,
    }));
  }

  private async require(caller: Caller, id: string, repo = this.repo): Promise<CollectionViewRow> {
    const row = await repo.get(viewerOf(caller), id);
    if (!row) throw notFound('Collection');
    return row;
  }

  /** The ids without repeats, in order; 400 naming those that do not exist or the caller may not see. */
  private async known(repo: CollectionsRepository, caller: Caller, ids: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(ids)];
    const found = await repo.visibleSeries(wanted, scopeFor(caller));
    const unknown = wanted.filter((id) => !found.has(id));
    if (unknown.length > 0)
      throw badRequest(
        unknown.length > 5
          ? `Unknown series: ${unknown.slice(0, 5).join(', ')} and ${unknown.length - 5} more`
          : `Unknown series: ${unknown.join(', ')}`,
        {
          series_ids: unknown,
        },
      );
    return wanted;
  }

  private static async uniqueName(repo: CollectionsRepository, name: string, owner: string | null, exceptId?: string): Promise<void> {
    await repo.lockNames(owner);
    if (await repo.nameTaken(listNameKey(name), owner, exceptId))
      throw conflict(
        owner === null ? `A shared collection named "${name}" already exists` : `You already have a collection named "${name}"`,
        { name },
      );
  }

  async list(caller: Caller, input: { search?: string; library_id?: string }, page: PageRequest) {
    const { total, rows } = await this.repo.list(
      viewerOf(caller),
      { search: input.search?.trim() || undefined, libraryId: input.library_id },
      page.offset,
      page.pageSize,
    );
    return { total, data: await this.views(caller, rows) };
  }

  /** The collections the caller sees that hold a series (404 for a series it may not see). */
  async ofSeries(caller: Caller, seriesId: string, page: PageRequest) {
    await this.deps.access.series(caller, seriesId);
    const { total, rows } = await this.repo.list(viewerOf(caller), { seriesId }, page.offset, page.pageSize);
    return { total, data: await this.views(caller, rows) };
  }

  async get(caller: Caller, id: string): Promise<CollectionView> {
    return (await this.views(caller, [await this.require(caller, id)]))[0]!;
  }

  async create(caller: Caller, input: CollectionCreate): Promise<CollectionView> {
    if (input.shared) requireSharedRight(caller, 'collections-write', `: ${SHARED}`);
    const owner = input.shared ? null : caller.user.id;
    const id = newId();
    const now = nowIso();
    await this.repo.transaction(async (repo) => {
      const seriesIds = await this.known(repo, caller, input.series_ids);
      await CollectionsService.uniqueName(repo, input.name, owner);
      await repo.insert({
        id,
        name: input.name,
        name_key: listNameKey(input.name),
        summary: input.summary,
        ordered: input.ordered ? 1 : 0,
        owner_user_id: owner,
        cover_series_id: null,
        source: 'user',
        edited: 0,
        created_at: now,
        updated_at: now,
      });
      await repo.setMembers(id, seriesIds);
    });
    return this.get(caller, id);
  }

  /**
   * A change of a collection the caller sees and may change, in one transaction (other writers of it wait); the
   * collection as it is after.
   */
  private async change(
    caller: Caller,
    id: string,
    fn: (repo: CollectionsRepository, row: CollectionViewRow) => Promise<RowChange>,
  ): Promise<CollectionView> {
    await this.repo.transaction(async (repo) => {
      await repo.lock(id);
      const row = await this.require(caller, id, repo);
      if (row.owner_user_id === null) requireSharedRight(caller, 'collections-write', `: ${SHARED}`);
      const changes = await fn(repo, row);
      if (changes === null) return;
      await repo.update(id, { ...changes, updated_at: nowIso(), ...(row.source !== 'user' ? { edited: 1 } : {}) });
    });
    return this.get(caller, id);
  }

  async update(caller: Caller, id: string, input: CollectionUpdate): Promise<CollectionView> {
    return this.change(caller, id, async (repo, row) => {
      if (Object.values(input).every((v) => v === undefined)) return null;
      const out: Updateable<CollectionsTable> = {};
      const scope = scopeFor(caller);
      if (input.shared === true && row.owner_user_id !== null) requireSharedRight(caller, 'collections-write', `: ${SHARED}`);
      const owner = input.shared === undefined ? row.owner_user_id : input.shared ? null : caller.user.id;
      const name = input.name ?? row.name;
      if (owner !== row.owner_user_id || listNameKey(name) !== row.name_key) await CollectionsService.uniqueName(repo, name, owner, id);
      if (input.name !== undefined) Object.assign(out, { name, name_key: listNameKey(name) });
      if (owner !== row.owner_user_id) out.owner_user_id = owner;
      if (input.summary !== undefined) out.summary = input.summary;
      if (input.ordered !== undefined) out.ordered = input.ordered ? 1 : 0;
      let members: string[] | undefined;
      if (input.series_ids !== undefined) {
        const next = await this.known(repo, caller, input.series_ids);
        members = keepingHidden(await repo.members(id, scope), next);
        await repo.setMembers(id, members);
        if (row.cover_series_id !== null && !members.includes(row.cover_series_id)) out.cover_series_id = null;
      }
      if (input.cover_series_id === null) out.cover_series_id = null;
      else if (input.cover_series_id !== undefined) {
        const cover = input.cover_series_id;
        const seen = (await repo.members(id, scope)).some((m) => m.seen && m.series_id === cover);
        if (!seen) throw badRequest('cover_series_id is not a series of the collection', { cover_series_id: cover });
        out.cover_series_id = cover;
      }
      return out;
    });
  }

  async remove(caller: Caller, id: string): Promise<void> {
    await this.repo.transaction(async (repo) => {
      const row = await this.require(caller, id, repo);
      if (row.owner_user_id === null) requireSharedRight(caller, 'collections-delete', `: ${SHARED}`);
      await repo.remove(id);
    });
  }

  /** A page of the collection's series the caller sees, in the collection's order, as GET /series/{id} shows them. */
  async series(caller: Caller, id: string, page: PageRequest): Promise<{ total: number; data: SeriesView[] }> {
    await this.require(caller, id);
    const { total, ids } = await this.repo.seriesPage(id, scopeFor(caller), page.offset, page.pageSize);
    return { total, data: await seriesViews(this.deps.series, caller, ids) };
  }

  /** Adds series at a place among those the caller sees (default the end); series already there stay where they are. */
  async addSeries(caller: Caller, id: string, input: CollectionSeriesAdd): Promise<CollectionView> {
    return this.change(caller, id, async (repo) => {
      const adding = await this.known(repo, caller, input.series_ids);
      const current = await repo.members(id, scopeFor(caller));
      const there = new Set(current.map((m) => m.series_id));
      const fresh = adding.filter((s) => !there.has(s));
      if (fresh.length === 0) return null;
      const all = current.map((m) => m.series_id);
      const seen = current.filter((m) => m.seen).map((m) => m.series_id);
      const at = input.position !== undefined && input.position < seen.length ? all.indexOf(seen[input.position]!) : all.length;
      all.splice(at, 0, ...fresh);
      await repo.setMembers(id, all);
      return {};
    });
  }

  /** Takes a series out of the collection (404 when the caller sees no such series in it). */
  async removeSeries(caller: Caller, id: string, seriesId: string): Promise<void> {
    await this.change(caller, id, async (repo, row) => {
      const current = await repo.members(id, scopeFor(caller));
      if (!current.some((m) => m.seen && m.series_id === seriesId)) throw notFound('Series', { reason: 'not in the collection' });
      await repo.setMembers(
        id,
        current.filter((m) => m.series_id !== seriesId).map((m) => m.series_id),
      );
      return row.cover_series_id === seriesId ? { cover_series_id: null } : {};
    });
  }

  /** Puts the series the caller sees in a new order (each named once); those it does not see keep their places. */
  async reorder(caller: Caller, id: string, input: CollectionSeriesOrder): Promise<CollectionView> {
    return this.change(caller, id, async (repo) => {
      const current = await repo.members(id, scopeFor(caller));
      const seen = new Set(current.filter((m) => m.seen).map((m) => m.series_id));
      const given = new Set<string>();
      const repeated = new Set<string>();
      for (const s of input.series_ids) (given.has(s) ? repeated : given).add(s);
      const unknown = [...given].filter((s) => !seen.has(s));
      const missing = [...seen].filter((s) => !given.has(s));
      if (unknown.length > 0 || missing.length > 0 || repeated.size > 0)
        throw badRequest(
          unknown.length > 0
            ? `Not series of the collection: ${unknown.slice(0, 5).join(', ')}`
            : 'series_ids must name every series of the collection once',
          { series_ids: unknown, missing, repeated: [...repeated] },
        );
      await repo.setMembers(id, keepingHidden(current, input.series_ids));
      return {};
    });
  }

  /** The collection's cover: the chosen series' cover, else the first series' (the caller's view of both). */
  async thumbnail(caller: Caller, id: string, accept: string | undefined): Promise<ImageLookup> {
    const row = await this.require(caller, id);
    const cover = row.visible_cover ?? row.first_series;
    if (!cover) throw notFound('Thumbnail', { reason: 'the collection shows no series' });
    return this.deps.series.thumbnail(caller, cover, accept);
  }
}
