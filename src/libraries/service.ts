import { type Caller, type ContentScope, EVERYTHING, inScope, scopeFor } from '../identity/index.js';
import type { FileCoverReader } from '../catalog/index.js';
import path from 'node:path';
import type { EventBus } from '../events/bus.js';
import type { EntityEventName } from '../events/types.js';
import { newId, nowIso } from '../db/ids.js';
import { badRequest, notFound } from '../http/errors.js';
import { cronError, type Scheduler } from '../tasks/scheduler.js';
import { globError } from './scanning/scanner/exclude.js';
import type { TaskView } from '../operations/index.js';
import { checkLibraryPath, type LibraryPathPolicy } from './paths.js';
import type { LibraryRepository, LibraryRow } from './repository.js';
import {
  DEFAULT_SCANNING_CONFIG,
  parseScanningConfig,
  type LibraryCreate,
  type LibraryPatch,
  type LibraryView,
  type PurgeResult,
  type ScanningConfig,
  type ScanningConfigInput,
} from './schemas.js';

/** What the libraries feature needs from scan control (implemented by libraries/scanning). */
export interface LibraryScanControl {
  /** Queues a scan (or returns the active one). */
  requestScan(libraryId: string, mode: 'normal' | 'deep' | undefined, reason: string): Promise<unknown>;
  /** Cancels the library's pending or running scans and waits (up to a few seconds) for them to stop. */
  cancelLibraryScans(libraryId: string): Promise<void>;
  /** Queues a `purge_deleted` task (or returns the library's active one). */
  requestPurge(libraryId: string): Promise<TaskView>;
}

export interface LibraryServiceDeps {
  repo: LibraryRepository;
  bus: EventBus;
  scheduler: Scheduler;
  scans: LibraryScanControl;
  /** A book file's cover (catalog/covers): the library's thumbnail is its first book's. */
  readCover?: FileCoverReader;
  onError?: (err: unknown, message: string) => void;
  /** `libraries.allowed_roots`: folders libraries must lie in; empty means any folder. */
  allowedRoots?: readonly string[];
}

/** What the path rules need to know of who asks. */
export interface LibraryRequester {
  isAdmin: boolean;
}

const scheduleKey = (libraryId: string) => `library-scan:${libraryId}`;

/** Merges an input over a base configuration and checks it: a bad cron is a 400, and enabled needs a cron. */
export function mergeScanningConfig(base: ScanningConfig, input: ScanningConfigInput | undefined): ScanningConfig {
  const merged: ScanningConfig = {
    enabled: input?.enabled ?? base.enabled,
    cron_schedule: input?.cron_schedule === undefined ? base.cron_schedule : input.cron_schedule?.trim() || null,
    default_mode: input?.default_mode ?? base.default_mode,
    scan_on_start: input?.scan_on_start ?? base.scan_on_start,
    import_lists: input?.import_lists ?? base.import_lists,
    watch: input?.watch ?? base.watch,
    watch_poll_seconds: input?.watch_poll_seconds === undefined ? base.watch_poll_seconds : input.watch_poll_seconds,
    watch_quiet_seconds: input?.watch_quiet_seconds ?? base.watch_quiet_seconds,
    write_comicinfo: input?.write_comicinfo ?? base.write_comicinfo,
    exclude: input?.exclude ?? base.exclude,
    media_type: input?.media_type ?? base.media_type,
    identify_after_scan: input?.identify_after_scan ?? base.identify_after_scan,
    identify_schedule: input?.identify_schedule === undefined ? base.identify_schedule : input.identify_schedule?.trim() || null,
  };
  for (const pattern of merged.exclude) {
    const why = globError(pattern);
    if (why) throw badRequest(`scanning_config.exclude: ${why}`, { field: 'scanning_config.exclude', value: pattern });
  }
  for (const field of ['cron_schedule', 'identify_schedule'] as const) {
    const expression = merged[field];
    const why = expression === null ? null : cronError(expression);
    if (why)
      throw badRequest(`scanning_config.${field} is not a valid cron expression: ${why}`, {
        field: `scanning_config.${field}`,
        value: expression,
      });
  }
  if (merged.enabled && merged.cron_schedule === null) {
    throw badRequest('scanning_config.cron_schedule is required when scanning_config.enabled is true', {
      field: 'scanning_config.cron_schedule',
    });
  }
  return merged;
}

/** Library rules: path checks, scanning configuration, schedules, deletion and purge. */
export class LibraryService {
  constructor(private readonly deps: LibraryServiceDeps) {}

  async list(offset: number, limit: number): Promise<{ total: number; data: LibraryView[] }> {
    const [total, rows] = await Promise.all([this.deps.repo.count(), this.deps.repo.page(offset, limit)]);
    return { total, data: await this.views(rows) };
  }

  async get(id: string): Promise<LibraryView> {
    return (await this.views([await this.require(id)]))[0]!;
  }

  /** The libraries the caller sees, with the series and books it sees counted. */
  async listFor(caller: Caller, offset: number, limit: number): Promise<{ total: number; data: LibraryView[] }> {
    const scope = scopeFor(caller);
    if (scope.all) return this.list(offset, limit);
    const [total, rows] = await Promise.all([this.deps.repo.count(scope.libraryIds), this.deps.repo.page(offset, limit, scope.libraryIds)]);
    return { total, data: await this.views(rows, scope) };
  }

  /** A library the caller sees (else the 404 of one that does not exist), counted as listFor counts. */
  async getFor(caller: Caller, id: string): Promise<LibraryView> {
    const scope = scopeFor(caller);
    if (!inScope(scope, id)) throw notFound('Library');
    return (await this.views([await this.require(id)], scope))[0]!;
  }

  async create(input: LibraryCreate, requester: LibraryRequester): Promise<LibraryView> {
    const others = await this.deps.repo.list();
    const libraryPath = await checkLibraryPath(input.path, others, this.pathPolicy(requester));
    const scanning = mergeScanningConfig(DEFAULT_SCANNING_CONFIG, input.scanning_config);
    const now = nowIso();
    const row: LibraryRow = {
      id: newId(),
      name: input.name,
      path: libraryPath,
      scanning_config: JSON.stringify(scanning),
      settings: '{}',
      created_at: now,
      updated_at: now,
      last_scanned_at: null,
    };
    await this.deps.repo.insert(row);
    this.syncSchedule(row.id, scanning);
    this.emit('library_created', row.id);
    return this.get(row.id);
  }

  /** PUT: name and path replaced; scanning_config fields given replace the stored ones. */
  replace(id: string, input: LibraryCreate, requester: LibraryRequester): Promise<LibraryView> {
    return this.patch(id, input, requester);
  }

  async patch(id: string, input: LibraryPatch, requester: LibraryRequester): Promise<LibraryView> {
    const current = await this.require(id);
    const changes: Partial<LibraryRow> = {};
    if (input.name !== undefined && input.name !== current.name) changes.name = input.name;
    if (input.path !== undefined && (!path.isAbsolute(input.path) || path.resolve(input.path) !== current.path)) {
      const others = (await this.deps.repo.list()).filter((l) => l.id !== id);
      changes.path = await checkLibraryPath(input.path, others, this.pathPolicy(requester));
    }
    const scanning = mergeScanningConfig(parseScanningConfig(current.scanning_config), input.scanning_config);
    const scanningText = JSON.stringify(scanning);
    if (scanningText !== current.scanning_config) changes.scanning_config = scanningText;
    if (Object.keys(changes).length > 0) {
      await this.deps.repo.update(id, { ...changes, updated_at: nowIso() });
      this.syncSchedule(id, scanning);
      this.emit('library_updated', id);
    }
    return this.get(id);
  }

  /**
   * Deletes the library: its running scan is cancelled first, then its series and books (and their current
   * progress) are removed; reading statistics stay. Emits series_deleted per series and library_deleted.
   */
  async delete(id: string): Promise<void> {
    await this.require(id);
    this.deps.scheduler.unschedule(scheduleKey(id));
    await this.deps.scans.cancelLibraryScans(id);
    const series = await this.deps.repo.seriesIds(id);
    if (!(await this.deps.repo.delete(id))) throw notFound('Library');
    for (const seriesId of series) this.emit('series_deleted', id, { series_id: seriesId });
    this.emit('library_deleted', id);
  }

  /** Permanently removes the library's soft-deleted books and the soft-deleted series left empty. */
  async purgeDeleted(id: string): Promise<PurgeResult> {
    await this.require(id);
    const purged = await this.deps.repo.purgeDeleted(id);
    for (const book of purged.books) this.emit('book_deleted', id, { book_id: book.id, series_id: book.series_id });
    for (const seriesId of purged.series) this.emit('series_deleted', id, { series_id: seriesId });
    return { library_id: id, books_purged: purged.books.length, series_purged: purged.series.length };
  }

  /** The same as a `purge_deleted` task, for libraries with many deleted books: 202 with the task. */
  async requestPurge(id: string): Promise<TaskView> {
    await this.require(id);
    return this.deps.scans.requestPurge(id);
  }

  /** Cover of the most recently added series, or a generated placeholder when the library has none. */
  async thumbnail(caller: Caller, id: string): Promise<{ data: Buffer; mediaType: string }> {
    const scope = scopeFor(caller);
    if (!inScope(scope, id)) throw notFound('Library');
    const library = await this.require(id);
    const book = await this.deps.repo.latestSeriesCoverBook(id, scope);
    if (book && this.deps.readCover) {
      try {
        const cover = await this.deps.readCover(path.join(library.path, book.path), book.format, book.cover_page);
        if (cover) return cover;
      } catch (err) {
        this.deps.onError?.(err, 'library thumbnail: cover could not be read');
      }
    }
    return placeholderImage(library.name);
  }

  /** Schedules every library with automatic scanning; with `startup`, queues the scans marked scan_on_start. */
  async scheduleAll(options: { startup: boolean }): Promise<void> {
    for (const library of await this.deps.repo.list()) {
      const scanning = parseScanningConfig(library.scanning_config);
      this.syncSchedule(library.id, scanning);
      if (options.startup && scanning.scan_on_start) {
        await this.deps.scans
          .requestScan(library.id, scanning.default_mode, 'scan_on_start')
          .catch((err: unknown) => this.deps.onError?.(err, `scan_on_start: could not queue the scan of library ${library.id}`));
      }
    }
  }

  private pathPolicy(requester: LibraryRequester): LibraryPathPolicy {
    return { allowedRoots: this.deps.allowedRoots ?? [], detailedErrors: requester.isAdmin };
  }

  private syncSchedule(id: string, scanning: ScanningConfig): void {
    const key = scheduleKey(id);
    if (!scanning.enabled || !scanning.cron_schedule) {
      this.deps.scheduler.unschedule(key);
      return;
    }
    this.deps.scheduler.schedule(key, scanning.cron_schedule, async () => {
      const library = await this.deps.repo.get(id);
      if (!library) return;
      const latest = parseScanningConfig(library.scanning_config);
      if (!latest.enabled) return;
      await this.deps.scans.requestScan(id, latest.default_mode, 'schedule');
    });
  }

  private async require(id: string): Promise<LibraryRow> {
    const row = await this.deps.repo.get(id);
    if (!row) throw notFound('Library');
    return row;
  }

  private async views(rows: LibraryRow[], scope: ContentScope = EVERYTHING): Promise<LibraryView[]> {
    const counts = await this.deps.repo.counts(
      rows.map((r) => r.id),
      scope,
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      path: r.path,
      scanning_config: parseScanningConfig(r.scanning_config),
      series_count: counts.get(r.id)?.series_count ?? 0,
      book_count: counts.get(r.id)?.book_count ?? 0,
      last_scanned_at: r.last_scanned_at,
      created_at: r.created_at,
      updated_at: r.updated_at,
    }));
  }

  private emit(type: EntityEventName, libraryId: string, ids: { series_id?: string; book_id?: string } = {}): void {
    this.deps.bus.publish(type, { type, ...ids, library_id: libraryId, timestamp: nowIso() });
  }
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A generated cover for an empty library: the library's initials on a colour derived from its name. */
export function placeholderImage(name: string): { data: Buffer; mediaType: string } {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  const hue = hash % 360;
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="450" viewBox="0 0 300 450">` +
    `<rect width="300" height="450" fill="hsl(${hue},45%,35%)"/>` +
    `<text x="150" y="250" font-family="sans-serif" font-size="110" fill="#fff" text-anchor="middle">${escapeXml(initials)}</text>` +
    `</svg>`;
  return { data: Buffer.from(svg), mediaType: 'image/svg+xml' };
}
