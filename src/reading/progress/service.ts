import {
  type AccessService,
  type Caller,
  type Device,
  type DeviceHint,
  type ProgressOrigin,
  resolveDevice,
  scopeFor,
} from '../../identity/index.js';
import { toBool, newId, nowIso } from '../../db/ids.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { PageRequest } from '../../http/pagination.js';
import { type BooksRepository, type BookWithLibrary, progressFraction } from '../../catalog/index.js';
import type { ProgressEventRow, ProgressRepository, ProgressRow, ProgressWithBook } from './repository.js';
import type { ProgressEventView, ProgressListItem, ProgressUpdate, ProgressView } from './schemas.js';
import { parseJsonColumnOrThrow, toJsonColumn } from '../../db/json-column.js';

/**
 * Time between two updates of the same book counts as reading when it is at most this long; a longer pause
 * ends the session and the next update starts a new one (counted from then).
 */
export const SESSION_GAP_MS = 10 * 60 * 1000;

function view(row: ProgressRow, pageCount: number): ProgressView {
  const completed = toBool(row.is_completed);
  return {
    book_id: row.book_id,
    user_id: row.user_id,
    current_page: row.current_page,
    page_count: pageCount,
    is_completed: completed,
    progress: progressFraction(row.current_page, pageCount, completed),
    started_at: row.started_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    device_id: row.device_id,
  };
}

function eventView(row: ProgressEventRow): ProgressEventView {
  return {
    id: row.id,
    book_id: row.book_id,
    device_id: row.device_id,
    protocol: row.protocol,
    position: parseJsonColumnOrThrow<Record<string, unknown>>(row.position),
    page: Number(row.page),
    percentage: Number(row.percentage),
    is_completed: toBool(Number(row.is_completed)),
    received_at: row.received_at,
    client_at: row.client_at,
    applied: toBool(Number(row.applied)),
  };
}

function listItem(row: ProgressWithBook): ProgressListItem {
  return {
    ...view(row, Number(row.page_count)),
    book: {
      id: row.book_id,
      title: row.title,
      number: row.number,
      series_id: row.series_id,
      series_name: row.series_name,
      library_id: row.library_id,
    },
  };
}

/** A write's outcome: the position now, and whether the write became it (false: older than the current one). */
export interface ProgressWrite {
  progress: ProgressView;
  applied: boolean;
}

export type { ProgressOrigin };

const NATIVE: ProgressOrigin = { protocol: 'colophon' };

/**
 * Reading progress rules. Progress belongs to one user and one book; every change also records statistics:
 * a read-through per completion, and pages and time per UTC day and device.
 */
export class ProgressService {
  constructor(
    private readonly repo: ProgressRepository,
    private readonly books: BooksRepository,
    private readonly access: AccessService<BookWithLibrary>,
  ) {}

  private book(caller: Caller, id: string): Promise<BookWithLibrary> {
    return this.access.book(caller, id);
  }

  private async device(caller: Caller, hint: DeviceHint): Promise<Device> {
    const apiKey = caller.apiKeyId ? { id: caller.apiKeyId, name: (await this.repo.apiKeyName(caller.apiKeyId)) ?? 'API key' } : null;
    return resolveDevice(apiKey, hint);
  }

  /** Positions and history of a book given to the book it became elsewhere (libraries/inbox: a file moved in). */
  async carryOver(fromBookId: string, toBookId: string): Promise<void> {
    await this.repo.carryOver(fromBookId, toBookId);
  }

  async get(caller: Caller, bookId: string): Promise<ProgressView> {
    const book = await this.book(caller, bookId);
    const row = await this.repo.get(caller.user.id, bookId);
    if (!row) throw notFound('Progress', { book_id: bookId });
    return view(row, Number(book.page_count));
  }

  /** The current position and the ledger event that set it (absent for progress cleared since); null when not started. */
  async position(caller: Caller, bookId: string): Promise<{ progress: ProgressView; event: ProgressEventRow | undefined } | null> {
    const book = await this.book(caller, bookId);
    const row = await this.repo.get(caller.user.id, bookId);
    if (!row) return null;
    return { progress: view(row, Number(book.page_count)), event: await this.repo.latestEvent(caller.user.id, bookId) };
  }

  async update(
    caller: Caller,
    bookId: string,
    input: ProgressUpdate,
    hint: DeviceHint,
    origin: ProgressOrigin = NATIVE,
  ): Promise<ProgressView> {
    return (await this.write(caller, bookId, input, hint, origin)).progress;
  }

  /** As update, telling whether the write became the position (see ProgressOrigin.clientAt). */
  async write(
    caller: Caller,
    bookId: string,
    input: ProgressUpdate,
    hint: DeviceHint,
    origin: ProgressOrigin = NATIVE,
  ): Promise<ProgressWrite> {
    if (input.current_page === undefined && input.is_completed === undefined)
      throw badRequest('Send current_page, is_completed, or both', { fields: ['current_page', 'is_completed'] });
    const book = await this.book(caller, bookId);
    const { recorded_at: recordedAt, entry_id: entryId, ...position } = input;
    return this.apply(caller, book, position, await this.device(caller, hint), {
      ...origin,
      clientAt: origin.clientAt ?? recordedAt,
      entryId: origin.entryId ?? entryId,
    });
  }

  async markRead(caller: Caller, bookId: string, hint: DeviceHint, origin: ProgressOrigin = NATIVE): Promise<ProgressView> {
    return this.update(caller, bookId, { is_completed: true }, hint, origin);
  }

  /** Marks these books read as one change from one device (Komga's "read up to"): each is access-checked. */
  async markManyRead(caller: Caller, bookIds: readonly string[], hint: DeviceHint, origin: ProgressOrigin = NATIVE): Promise<void> {
    if (bookIds.length === 0) return;
    const device = await this.device(caller, hint);
    for (const id of bookIds) await this.apply(caller, await this.book(caller, id), { is_completed: true }, device, origin);
  }

  async markUnread(caller: Caller, bookId: string, hint: DeviceHint = {}, origin: ProgressOrigin = NATIVE): Promise<void> {
    await this.book(caller, bookId);
    if ((await this.repo.delete(caller.user.id, [bookId])) > 0)
      await this.recordCleared(caller, bookId, await this.device(caller, hint), origin);
  }

  /** Clears the progress (statistics already recorded stay; the ledger records the clearing). */
  async clear(caller: Caller, bookId: string, hint: DeviceHint = {}, origin: ProgressOrigin = NATIVE): Promise<void> {
    return this.markUnread(caller, bookId, hint, origin);
  }

  private recordCleared(caller: Caller, bookId: string, device: Device, origin: ProgressOrigin): Promise<void> {
    return this.repo.appendEvent({
      id: newId(),
      user_id: caller.user.id,
      book_id: bookId,
      device_id: device.id,
      protocol: origin.protocol,
      position: toJsonColumn({ cleared: true }),
      page: 0,
      percentage: 0,
      is_completed: 0,
      received_at: nowIso(),
      client_at: null,
      client_entry_id: null,
      applied: 1,
    });
  }

  /** Marks every present book of the series (whose existence the caller checked) read (each completion is a read-through) or unread. */
  async markSeries(
    caller: Caller,
    seriesId: string,
    read: boolean,
    hint: DeviceHint,
    origin: ProgressOrigin = NATIVE,
  ): Promise<{ series_id: string; books_updated: number }> {
    const { rows } = await this.books.list({
      userId: caller.user.id,
      scope: scopeFor(caller),
      seriesId,
      sort: null,
      offset: 0,
      limit: 100_000,
    });
    const device = await this.device(caller, hint);
    if (!read) {
      const started = [];
      for (const row of rows) if (await this.repo.get(caller.user.id, row.id)) started.push(row.id);
      const cleared = await this.repo.delete(caller.user.id, started);
      for (const id of started) await this.recordCleared(caller, id, device, origin);
      return { series_id: seriesId, books_updated: cleared };
    }
    let updated = 0;
    for (const row of rows) {
      const book = await this.books.get(row.id);
      if (!book) continue;
      const current = await this.repo.get(caller.user.id, book.id);
      if (current && toBool(current.is_completed)) continue;
      await this.apply(caller, book, { is_completed: true }, device, origin);
      updated += 1;
    }
    return { series_id: seriesId, books_updated: updated };
  }

  /** The caller's position history in a book, newest first. */
  async history(caller: Caller, bookId: string, page: PageRequest): Promise<{ total: number; data: ProgressEventView[] }> {
    await this.book(caller, bookId);
    const { total, rows } = await this.repo.events(caller.user.id, bookId, page.offset, page.pageSize);
    return { total, data: rows.map(eventView) };
  }

  /**
   * Puts the position back to an earlier event (a device jumped to the wrong place). The restore is itself a new
   * event, so it can be undone the same way.
   */
  async restore(caller: Caller, bookId: string, eventId: string, hint: DeviceHint): Promise<ProgressView> {
    const book = await this.book(caller, bookId);
    const event = await this.repo.event(caller.user.id, eventId);
    if (!event || event.book_id !== bookId) throw notFound('Progress event', { event_id: eventId });
    if (Number(event.page) === 0 && Number(book.page_count) > 0)
      throw badRequest('That event cleared the progress: clear it with DELETE /books/{id}/progress', { event_id: eventId });
    const position = parseJsonColumnOrThrow<Record<string, unknown>>(event.position);
    const { progress } = await this.apply(
      caller,
      book,
      { current_page: Math.min(Number(event.page), Number(book.page_count)), is_completed: toBool(event.is_completed) },
      await this.device(caller, hint),
      {
        protocol: NATIVE.protocol,
        percentage: Number(event.percentage),
        position: { ...position, restored_from: event.id },
      },
    );
    return progress;
  }

  async list(caller: Caller, page: PageRequest, inProgressOnly: boolean): Promise<{ total: number; data: ProgressListItem[] }> {
    const { total, rows } = await this.repo.list(caller.user.id, scopeFor(caller), inProgressOnly, page.offset, page.pageSize);
    return { total, data: rows.map(listItem) };
  }

  /**
   * The rules: current_page must lie within 1..page_count; completing sets current_page to the last page;
   * without is_completed, reaching the last page completes the book; un-completing starts a new reading.
   */
  private async apply(
    caller: Caller,
    book: BookWithLibrary,
    input: ProgressUpdate,
    device: Device,
    origin: ProgressOrigin,
  ): Promise<ProgressWrite> {
    const pageCount = Number(book.page_count);
    const userId = caller.user.id;
    if (input.current_page !== undefined) {
      const min = pageCount > 0 ? 1 : 0;
      if (input.current_page < min || input.current_page > pageCount) {
        throw badRequest(`current_page must be between ${min} and ${pageCount} (the book's page count)`, {
          field: 'current_page',
          value: input.current_page,
          page_count: pageCount,
        });
      }
    }
    const current = await this.repo.get(userId, book.id);
    // Sent before (its answer lost): recorded once, answered with the position as it is.
    if (origin.entryId !== undefined && (await this.repo.hasEntry(userId, origin.entryId))) {
      const progress = current ?? (await this.repo.get(userId, book.id));
      if (progress) return { progress: view(progress, pageCount), applied: false };
    }
    const wasCompleted = current ? toBool(current.is_completed) : false;
    const completed =
      input.is_completed ?? (input.current_page !== undefined ? pageCount > 0 && input.current_page === pageCount : wasCompleted);
    const page = completed ? pageCount : (input.current_page ?? (current && !wasCompleted ? current.current_page : Math.min(1, pageCount)));
    const now = nowIso();
    const clientAt = origin.clientAt === undefined ? null : new Date(Math.min(Date.parse(origin.clientAt), Date.parse(now))).toISOString();
    const event = {
      id: newId(),
      user_id: userId,
      book_id: book.id,
      device_id: device.id,
      protocol: origin.protocol,
      position: toJsonColumn(origin.position ?? input),
      page,
      percentage: completed ? 1 : (origin.percentage ?? progressFraction(page, pageCount, completed)),
      is_completed: completed ? 1 : 0,
      received_at: now,
      client_at: clientAt,
      client_entry_id: origin.entryId ?? null,
    };
    const touch = { protocol: origin.protocol, clientId: origin.client?.id, clientName: origin.client?.name };
    if (current && clientAt !== null && Date.parse(clientAt) < Date.parse(await this.positionTime(current))) {
      // Older than the position: history only. The device synced, but no reading activity is counted (nothing moved).
      await this.repo.appendEvent({ ...event, applied: 0 });
      await this.repo.touchDevice(userId, device, now, touch);
      return { progress: view(current, pageCount), applied: false };
    }
    const restarted = wasCompleted && !completed;
    const row: ProgressRow = {
      user_id: userId,
      book_id: book.id,
      current_page: page,
      is_completed: completed ? 1 : 0,
      started_at: current && !restarted ? current.started_at : now,
      updated_at: now,
      completed_at: completed ? (wasCompleted && current?.completed_at ? current.completed_at : now) : null,
      device_id: device.id,
    };
    await this.repo.saveWithEvent(row, { ...event, applied: 1 });

    // Statistics: they keep the titles, so they outlive a purge of the book.
    const previousPage = current && !restarted ? current.current_page : 0;
    const gap = current ? Date.parse(now) - Date.parse(current.updated_at) : Number.POSITIVE_INFINITY;
    await this.repo.touchDevice(userId, device, now, touch);
    await this.repo.addActivity({
      user_id: userId,
      day: now.slice(0, 10),
      book_id: book.id,
      device_id: device.id,
      series_id: book.series_id,
      library_id: book.library_id,
      book_title: book.title,
      series_name: book.series_name,
      pages_read: Math.max(0, page - previousPage),
      reading_ms: gap <= SESSION_GAP_MS ? Math.max(0, gap) : 0,
      last_at: now,
    });
    if (completed && !wasCompleted) {
      await this.repo.addReadThrough({
        id: newId(),
        user_id: userId,
        book_id: book.id,
        series_id: book.series_id,
        library_id: book.library_id,
        book_title: book.title,
        series_name: book.series_name,
        page_count: pageCount,
        started_at: row.started_at,
        completed_at: now,
        device_id: device.id,
      });
    }
    return { progress: view(row, pageCount), applied: true };
  }

  /** The time of the current position: what its client said, else when it was received. */
  private async positionTime(current: ProgressRow): Promise<string> {
    const event = await this.repo.latestEvent(current.user_id, current.book_id);
    return event?.client_at ?? event?.received_at ?? current.updated_at;
  }
}
