import { createHash } from 'node:crypto';
import { nowIso } from '../../../db/ids.js';
import { parseJsonColumn, toJsonColumn } from '../../../db/json-column.js';
import { AppError, notFound } from '../../../http/errors.js';
import { type Caller, scopeFor } from '../../../identity/index.js';
import type { KoboBookRow, KoboDeviceRow, KoboRepository, KoboSelection, KoboShelf, SyncChange } from './repository.js';

export type { KoboBookRow, KoboSelection, KoboShelf, SyncChange } from './repository.js';

/** One response of the library sync: what it carries, and whether more follows. */
export interface KoboSyncPage {
  /** The generation this response is; the device echoes it in its next sync token. */
  generation: number;
  items: { change: SyncChange; book: KoboBookRow }[];
  /** Books to take off the device. */
  removed: string[];
  /** Chosen collections and read lists as shelves: new or changed (name, books), and those to delete. */
  shelves: { change: 'new' | 'changed'; shelf: KoboShelf }[];
  removedShelves: string[];
  more: boolean;
}

/** What a shelf was sent as: its name and its books in order. */
const shelfStamp = (shelf: KoboShelf) =>
  createHash('sha256')
    .update(JSON.stringify([shelf.name, shelf.bookIds]))
    .digest('base64url');

export interface KoboDeviceView {
  api_key_id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  last_sync_at: string | null;
  kobo_device_id: string | null;
  selection: KoboSelection;
  /** The last download that could not be given as asked; null when none, or its book is no longer visible. */
  delivery_problem: { book_id: string; book_title: string; message: string; at: string } | null;
}

/** The screen comics are fitted to when the device has none set: a Kobo Libra's (1264 × 1680). */
export const DEFAULT_SCREEN = Object.freeze({ width: 1264, height: 1680 });

/** How a device gets its books, its defaults filled in. */
export interface KoboDelivery {
  /** EPUBs as KEPUB. */
  kepub: boolean;
  /** Comics in shades of grey. */
  greyscale: boolean;
  /** The screen comics are fitted to (never enlarged); null: the pages' own size. */
  screen: { width: number; height: number } | null;
}

export function deliveryOf(selection: KoboSelection): KoboDelivery {
  return {
    kepub: selection.kepub !== false,
    greyscale: selection.greyscale === true,
    screen: selection.screen === undefined ? { ...DEFAULT_SCREEN } : selection.screen,
  };
}

/** The formats whose delivery differs between two settings: the device gets those books again. */
function redelivered(before: KoboDelivery, after: KoboDelivery): string[] {
  const formats: string[] = [];
  if (before.kepub !== after.kepub) formats.push('epub');
  if (before.greyscale !== after.greyscale || JSON.stringify(before.screen) !== JSON.stringify(after.screen))
    formats.push('cbz', 'cbr', 'pdf');
  return formats;
}

function selectionOf(row: KoboDeviceRow | null): KoboSelection {
  if (!row) return {};
  return parseJsonColumn<KoboSelection>(row.selection, {}, (v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as KoboSelection) : undefined,
  );
}

/**
 * Kobo devices and their incremental library sync. A device is an API key holding `kobo-sync`; what it was sent
 * is kept per key in the database (any instance answers the next request, a restart loses nothing), and a
 * response counts as received only once the device echoes its generation (see tables/kobo.ts).
 */
export class KoboService {
  constructor(
    private readonly repo: KoboRepository,
    private readonly itemLimit: () => number,
  ) {}

  private keyOf(caller: Caller): string {
    // The routes take the key from the path: a caller without one came through some other credential.
    if (!caller.apiKeyId) throw new AppError(401, 'Unauthorized', 'A Kobo syncs with an API key in its path: /kobo/{api key}/');
    return caller.apiKeyId;
  }

  /** The device of the caller's key (made on first use), with what it syncs. */
  async device(caller: Caller, koboDeviceId: string | null): Promise<{ row: KoboDeviceRow; selection: KoboSelection }> {
    const row = await this.repo.device(this.keyOf(caller), caller.user.id, koboDeviceId, nowIso());
    return { row, selection: selectionOf(row) };
  }

  /** How the caller's device gets its books (EPUB as KEPUB or not, the comics' size and colours). */
  async delivery(caller: Caller): Promise<KoboDelivery> {
    return deliveryOf((await this.device(caller, null)).selection);
  }

  /** The next page of the sync; `acknowledged` is the generation the device's token carries (null: none). */
  async sync(caller: Caller, koboDeviceId: string | null, acknowledged: number | null): Promise<KoboSyncPage> {
    const apiKeyId = this.keyOf(caller);
    const { selection } = await this.device(caller, koboDeviceId);
    await this.repo.acknowledge(apiKeyId, acknowledged);
    const limit = this.itemLimit();
    const scope = scopeFor(caller);
    const behind = await this.repo.behind(apiKeyId, caller.user.id, scope, selection, limit + 1);
    let more = behind.length > limit;
    const items = behind.slice(0, limit);
    let removed: string[] = [];
    if (!more) {
      const room = limit - items.length;
      const gone = await this.repo.removed(apiKeyId, caller.user.id, scope, selection, room + 1);
      more = gone.length > room;
      removed = gone.slice(0, room);
    }
    // Shelves last: they name books the device has by then.
    const shelves: KoboSyncPage['shelves'] = [];
    let removedShelves: string[] = [];
    if (!more) {
      const sent = new Map((await this.repo.syncedShelves(apiKeyId)).map((r) => [r.tag_id, r.stamp]));
      const current = await this.repo.shelves(caller.user.id, scope, selection);
      for (const shelf of current) {
        const stamp = sent.get(shelf.id);
        if (stamp === undefined) shelves.push({ change: 'new', shelf });
        else if (stamp !== shelfStamp(shelf)) shelves.push({ change: 'changed', shelf });
      }
      const kept = new Set(current.map((c) => c.id));
      removedShelves = [...sent.keys()].filter((id) => !kept.has(id));
    }
    const generation = await this.repo.nextGeneration(apiKeyId, nowIso());
    await this.repo.sent(
      apiKeyId,
      generation,
      items.map((i) => i.book),
      removed,
    );
    await this.repo.shelvesSent(
      apiKeyId,
      generation,
      shelves.map(({ shelf }) => ({ tag_id: shelf.id, stamp: shelfStamp(shelf) })),
      removedShelves,
    );
    return { generation, items, removed, shelves, removedShelves, more };
  }

  /** A book the device may ask about (metadata, state, download): one that belongs on it, else a 404. */
  async book(caller: Caller, bookId: string): Promise<KoboBookRow> {
    const book = await this.repo.book(caller.user.id, scopeFor(caller), bookId);
    if (!book) throw notFound('Book', { book_id: bookId });
    return book;
  }

  /** The device wrote this position: it is not echoed back in the next sync. */
  async positionFromDevice(caller: Caller, bookId: string, progressAt: string): Promise<void> {
    await this.repo.progressFromDevice(this.keyOf(caller), bookId, progressAt);
  }

  /** The device deleted the book from its library: it stays off the device. */
  async archive(caller: Caller, bookId: string): Promise<void> {
    const apiKeyId = this.keyOf(caller);
    await this.book(caller, bookId);
    const { row } = await this.device(caller, null);
    await this.repo.archived(apiKeyId, bookId, row.generation);
  }

  /** The caller's Kobo keys with their devices, for the account page. */
  async devices(caller: Caller): Promise<KoboDeviceView[]> {
    const keys = await this.repo.keysOf(caller.user.id);
    return Promise.all(
      keys.map(async (k) => ({
        api_key_id: k.id,
        name: k.name,
        key_prefix: k.key_prefix,
        created_at: k.created_at,
        last_used_at: k.last_used_at,
        last_sync_at: k.device?.last_sync_at ?? null,
        kobo_device_id: k.device?.kobo_device_id ?? null,
        // The delivery settings as they apply, defaults included, so that a client shows what the device gets.
        selection: { ...selectionOf(k.device), ...deliveryOf(selectionOf(k.device)) },
        delivery_problem: await this.deliveryProblemOf(caller, k.device),
      })),
    );
  }

  /** The device's last fallen-back delivery, told only while its book is one the caller may see. */
  private async deliveryProblemOf(caller: Caller, device: KoboDeviceRow | null): Promise<KoboDeviceView['delivery_problem']> {
    const noted = parseJsonColumn<{ book_id?: unknown; message?: unknown; at?: unknown } | null>(device?.delivery_problem ?? null, null);
    if (!noted || typeof noted.book_id !== 'string' || typeof noted.message !== 'string' || typeof noted.at !== 'string') return null;
    const book = await this.repo.book(caller.user.id, scopeFor(caller), noted.book_id);
    return book ? { book_id: book.id, book_title: book.title, message: noted.message, at: noted.at } : null;
  }

  /**
   * A download to this device that could not be given as asked (why, in words without server paths), or null
   * when one was: shown on the device's card, not only in the server's log.
   */
  async noteDelivery(caller: Caller, bookId: string, problem: string | null): Promise<void> {
    const apiKeyId = this.keyOf(caller);
    const device = await this.repo.device(apiKeyId, caller.user.id, null, nowIso());
    if (problem === null && device.delivery_problem === null) return;
    await this.repo.setDeliveryProblem(
      apiKeyId,
      problem === null ? null : toJsonColumn({ book_id: bookId, message: problem, at: nowIso() }),
    );
  }

  /** Sets what a device syncs; the next sync adds and removes books to match. */
  async setSelection(caller: Caller, apiKeyId: string, selection: KoboSelection): Promise<KoboDeviceView> {
    const key = (await this.repo.keysOf(caller.user.id)).find((k) => k.id === apiKeyId);
    if (!key) throw notFound('Kobo device', { api_key_id: apiKeyId });
    const now = nowIso();
    const before = deliveryOf(selectionOf(await this.repo.device(apiKeyId, caller.user.id, null, now)));
    const clean: KoboSelection = {
      ...(selection.collections?.length ? { collections: [...new Set(selection.collections)] } : {}),
      ...(selection.read_lists?.length ? { read_lists: [...new Set(selection.read_lists)] } : {}),
      ...(selection.want_to_read ? { want_to_read: true } : {}),
      ...(selection.greyscale ? { greyscale: true } : {}),
      ...(selection.kepub === false ? { kepub: false } : {}),
      ...(selection.screen !== undefined
        ? { screen: selection.screen && { width: selection.screen.width, height: selection.screen.height } }
        : {}),
    };
    await this.repo.setSelection(apiKeyId, toJsonColumn(clean), now);
    await this.repo.resend(apiKeyId, redelivered(before, deliveryOf(clean)));
    return (await this.devices(caller)).find((d) => d.api_key_id === apiKeyId)!;
  }
}
