import { nowIso } from '../../db/ids.js';
import { type Caller, type DeviceHint, scopeFor, scopeOfUser, userPermissions } from '../../identity/index.js';
import type { ProgressService } from '../../reading/index.js';
import type { KosyncDocumentRow, KosyncRepository } from './repository.js';
import { parseJsonColumnOrThrow } from '../../db/json-column.js';

/**
 * The kosync protocol's errors (koreader-sync-server, config/errors.lua): a numeric code and message in the body,
 * with the HTTP status that server gives each.
 */
export const KOSYNC_ERRORS = {
  2001: { status: 401, message: 'Unauthorized' },
  2002: { status: 402, message: 'Username is already registered.' },
  2003: { status: 403, message: 'Invalid request' },
  2004: { status: 403, message: "Field 'document' not provided." },
  2005: { status: 402, message: 'User registration is disabled.' },
} as const;
export type KosyncErrorCode = keyof typeof KOSYNC_ERRORS;

export class KosyncError extends Error {
  constructor(readonly code: KosyncErrorCode) {
    super(KOSYNC_ERRORS[code].message);
  }
  get status(): number {
    return KOSYNC_ERRORS[this.code].status;
  }
}

/** What KOReader sends with PUT /syncs/progress. */
export interface KosyncProgressInput {
  document?: unknown;
  progress?: unknown;
  percentage?: unknown;
  device?: unknown;
  device_id?: unknown;
  /**
   * Not sent by KOReader's plugin: an extension for clients that push positions recorded offline. Unix seconds of
   * when the client recorded the position; an older one than the current position is kept in the history only.
   */
  timestamp?: unknown;
}

/** The position as GET /syncs/progress/{document} answers it. */
export interface KosyncPosition {
  document: string;
  progress: string;
  percentage: number;
  device: string;
  device_id?: string;
  timestamp: number;
}

/** Formats whose KOReader position is a page number (its `progress` is the page as text). */
const PAGED_FORMATS = new Set(['cbz', 'cbr', 'pdf']);

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * KOReader's progress sync over Colophon's one position per user and book. A document id is matched to a book by
 * KOReader's partial MD5 or file-name MD5; what KOReader sends is kept per document (so an unknown document
 * keeps its position until its book appears) and written to the progress service (and so to the ledger) when
 * the book is known. Reading answers the latest position from any protocol.
 */
export class KosyncService {
  constructor(
    private readonly repo: KosyncRepository,
    private readonly progress: ProgressService,
  ) {}

  /** The caller, with the permission the request needs (the routes are public to the auth hooks: see routes.ts). */
  authorize(caller: Caller | null, permission: 'progress-read' | 'progress-write' = 'progress-read'): Caller {
    if (!caller || !caller.permissions.has(permission)) throw new KosyncError(2001);
    return caller;
  }

  /**
   * Accounts are Colophon's: KOReader can only send an MD5 of its password field, which Colophon never stores.
   * A caller that already identifies (an API key) is told the account exists, so KOReader's "Login" is next.
   */
  createUser(caller: Caller | null, registrationEnabled: boolean): never {
    if (caller) throw new KosyncError(2002);
    throw new KosyncError(registrationEnabled ? 2003 : 2005);
  }

  async update(caller: Caller, input: KosyncProgressInput, hint: DeviceHint): Promise<{ document: string; timestamp: number }> {
    if (!isText(input.document) || input.document.includes(':')) throw new KosyncError(2004);
    const percentage =
      typeof input.percentage === 'number' ? input.percentage : typeof input.percentage === 'string' ? Number(input.percentage) : NaN;
    const progress = typeof input.progress === 'number' ? String(input.progress) : input.progress;
    if (!Number.isFinite(percentage) || percentage < 0 || percentage > 1 || !isText(progress) || !isText(input.device))
      throw new KosyncError(2003);
    const deviceId = isText(input.device_id) ? input.device_id.slice(0, 100) : null;
    const now = nowIso();
    const clientAt = clientTime(input.timestamp, now);
    const row: KosyncDocumentRow = {
      user_id: caller.user.id,
      document: input.document,
      book_id: null,
      progress,
      percentage,
      device: input.device.slice(0, 200),
      device_id: deviceId,
      updated_at: clientAt ?? now,
      api_key_id: caller.apiKeyId,
    };
    const book = await this.repo.bookFor(input.document, scopeFor(caller));
    let applied = true;
    if (book) {
      row.book_id = book.id;
      applied = await this.writeProgress(caller, book, row, hint, clientAt ?? undefined);
    } else {
      const stored = await this.repo.get(caller.user.id, input.document);
      applied = !stored || clientAt === null || Date.parse(stored.updated_at) <= Date.parse(clientAt);
    }
    // The document's row is the position KOReader gets back for a book not in the library yet: an older one stays out.
    if (applied) await this.repo.save(row);
    return { document: input.document, timestamp: unixSeconds(now) };
  }

  /**
   * Books appeared (a scan added them, or computed their KOReader MD5): every KOReader position waiting for one becomes
   * the book's position for its user, attributed to the API key it was synced with, unless a newer one exists (the
   * position keeps the time KOReader sent it). Each waiting document is claimed once, so two processes seeing the
   * same event do not both write it. Returns how many were attached.
   */
  async attachPendingMany(bookIds: readonly string[]): Promise<number> {
    if (bookIds.length === 0 || !(await this.repo.anyUnattached())) return 0;
    let attached = 0;
    // One book that fails (its user's row, a claim) does not keep the others of the batch waiting.
    const failures: unknown[] = [];
    for (const bookId of bookIds) {
      try {
        attached += await this.attachWaiting(bookId);
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, `${failures.length} books' waiting KOReader positions could not be attached`);
    return attached;
  }

  private async attachWaiting(bookId: string): Promise<number> {
    let attached = 0;
    for (const row of await this.repo.pendingFor(bookId)) {
      const user = await this.repo.activeUser(row.user_id);
      if (!user) continue;
      const permissions = userPermissions(user.role, parseJsonColumnOrThrow<string[]>(user.permissions));
      if (!permissions.has('progress-write')) continue;
      const scope = scopeOfUser(user);
      const book = await this.repo.bookFor(row.document, scope);
      if (!book || book.id !== bookId || !(await this.repo.claim(row.user_id, row.document, bookId))) continue;
      const caller: Caller = {
        user: { id: user.id, username: user.username, email: user.email, role: user.role },
        permissions,
        apiKeyId: row.api_key_id,
        tokenId: null,
        tokenExpiresAt: null,
        method: 'api_key',
        isAdmin: permissions.has('system-admin'),
        securityStamp: user.security_stamp,
        scope,
      };
      await this.writeProgress(caller, book, { ...row, book_id: bookId }, { deviceId: row.device_id ?? undefined }, row.updated_at);
      attached += 1;
    }
    return attached;
  }

  async get(caller: Caller, document: string): Promise<KosyncPosition | Record<string, never>> {
    if (!isText(document) || document.includes(':')) throw new KosyncError(2004);
    const stored = await this.repo.get(caller.user.id, document);
    const book = await this.repo.bookFor(document, scopeFor(caller));
    if (!book) return stored ? this.asKosync(stored) : {};
    // The book appeared since KOReader sent this (and no scan event attached it yet: the claim is taken once):
    // its position becomes the book's unless a newer one exists.
    if (stored && stored.book_id === null && (await this.repo.claim(caller.user.id, document, book.id))) {
      const current = await this.progress.position(caller, book.id);
      if (!current || Date.parse(current.progress.updated_at) < Date.parse(stored.updated_at)) {
        await this.writeProgress(caller, book, stored, { deviceId: stored.device_id ?? undefined }, stored.updated_at);
        return this.asKosync(stored);
      }
    }
    const current = await this.progress.position(caller, book.id);
    if (!current) return stored ? this.asKosync(stored) : {};
    const { progress, event } = current;
    // A KOReader write is still the position: give it back as KOReader sent it (its xpointer).
    if (event?.protocol === 'koreader') {
      const sent = parseJsonColumnOrThrow<{ progress: string; percentage: number; device: string; device_id: string | null }>(
        event.position,
      );
      return {
        document,
        progress: sent.progress,
        percentage: sent.percentage,
        device: sent.device,
        ...(sent.device_id ? { device_id: sent.device_id } : {}),
        timestamp: unixSeconds(event.received_at),
      };
    }
    const percentage = event && event.page === progress.current_page ? Number(event.percentage) : progress.progress;
    return {
      document,
      progress: positionFor(book.format, progress.current_page),
      percentage,
      device: event ? deviceName(event.protocol, event.device_id) : 'Colophon',
      timestamp: unixSeconds(progress.updated_at),
    };
  }

  /** Writes KOReader's position as the book's; false when it was older than the current one (history only). */
  private async writeProgress(
    caller: Caller,
    book: { id: string; format: string | null; page_count: number },
    row: KosyncDocumentRow,
    hint: DeviceHint,
    clientAt?: string,
  ): Promise<boolean> {
    const pageCount = book.page_count;
    const asPage = Number(row.progress);
    const page =
      book.format && PAGED_FORMATS.has(book.format) && Number.isInteger(asPage) && asPage >= 1 && asPage <= pageCount
        ? asPage
        : Math.min(pageCount, Math.max(pageCount > 0 ? 1 : 0, Math.ceil(row.percentage * pageCount)));
    const { applied } = await this.progress.write(
      caller,
      book.id,
      { current_page: page, is_completed: row.percentage >= 1 },
      { ...hint, deviceId: row.device_id ?? hint.deviceId },
      {
        protocol: 'koreader',
        percentage: row.percentage,
        position: {
          document: row.document,
          progress: row.progress,
          percentage: row.percentage,
          device: row.device,
          device_id: row.device_id,
        },
        ...(clientAt ? { clientAt } : {}),
        client: { id: row.device_id, name: row.device },
      },
    );
    return applied;
  }

  private asKosync(row: KosyncDocumentRow): KosyncPosition {
    return {
      document: row.document,
      progress: row.progress,
      percentage: Number(row.percentage),
      device: row.device,
      ...(row.device_id ? { device_id: row.device_id } : {}),
      timestamp: unixSeconds(row.updated_at),
    };
  }
}

/**
 * A position KOReader can go to: the page number for paged formats; for an EPUB the start of the spine document
 * Colophon counts as the page (CREngine numbers spine documents as DocFragment[1..n]).
 */
export function positionFor(format: string | null, page: number): string {
  if (format === 'epub') return `/body/DocFragment[${Math.max(1, page)}]/body`;
  return String(Math.max(1, page));
}

/** The optional `timestamp` (Unix seconds) as ISO 8601, no later than now; null when absent or not a time. */
function clientTime(timestamp: unknown, now: string): string | null {
  const seconds =
    typeof timestamp === 'number' ? timestamp : typeof timestamp === 'string' && timestamp.trim() !== '' ? Number(timestamp) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  return new Date(Math.min(seconds * 1000, Date.parse(now))).toISOString();
}

function deviceName(protocol: string, deviceId: string): string {
  return protocol === 'colophon' ? `Colophon (${deviceId})` : `${protocol} (${deviceId})`;
}
