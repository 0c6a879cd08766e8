import { sql, type Insertable, type Selectable, type SqlBool, type Transaction, type Updateable } from 'kysely';
import type { Database } from '../../../db/connection.js';
import { RepeatedInsert } from '../../../db/repeated-insert.js';
import type { DB } from '../../../db/schema.js';
import type { BooksTable, LibrariesTable, SeriesTable } from '../../../db/tables/catalog.js';
import type { MetadataHistoryTable } from '../../../db/tables/metadata.js';
import { ListSyncRepository, type ListSyncResult } from './list-repository.js';
import { chunks } from '../../../util/chunks.js';

export type BookInsert = Insertable<BooksTable>;
export type SeriesInsert = Insertable<SeriesTable>;
export type SeriesRow = Selectable<SeriesTable>;

/** What a scan compares the folder against: one light row per book of the library, present or soft-deleted. */
export interface BookIndexRow {
  id: string;
  path: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  /** Null for a book analysed before KOReader ids were computed: the next scan fills it in. */
  koreader_md5: string | null;
  series_id: string;
  deleted_at: string | null;
  analysis_error: string | null;
}

export interface SeriesIndexRow {
  id: string;
  path: string;
  name: string;
  deleted_at: string | null;
  /** The series' `metadata` document as stored (absent for a series this scan creates). */
  metadata?: string;
}

export interface BookForSeries {
  series_id: string;
  path: string;
  metadata: string;
  number_sort: number | null;
  size: number;
  page_count: number;
}

export interface CatalogBatch {
  newSeries: SeriesInsert[];
  restoreSeries: string[];
  insertBooks: BookInsert[];
  updateBooks: { id: string; changes: Updateable<BooksTable> }[];
  /** Metadata kept beside a person's locked values, and the history of what the scan changed (catalog/metadata). */
  metadata?: ScanMetadataWrites;
}

export interface ScanMetadataWrites {
  /** The files' new value of a locked field (JSON), kept by its lock. */
  lockValues: { entity_id: string; field: string; file_value: string }[];
  history: Insertable<MetadataHistoryTable>[];
}

const INSERT_CHUNK = 100;
const IN_CHUNK = 500;
/**
 * Books written per statement, with a turn of the event loop between statements. better-sqlite3 blocks the
 * thread for the whole statement, and this thread hands the next book to each media worker: a batch written in
 * one go (tens of ms with the full-text triggers) left both workers idle for most of it, ~10% of a first scan.
 */
const BOOK_INSERT_CHUNK = 20;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function writeMetadata(trx: Transaction<DB>, metadata: ScanMetadataWrites): Promise<void> {
  for (const l of metadata.lockValues) {
    await trx
      .updateTable('metadata_locks')
      .set({ file_value: l.file_value })
      .where('entity_id', '=', l.entity_id)
      .where('field', '=', l.field)
      .execute();
  }
  for (const part of chunks(metadata.history, 50)) await trx.insertInto('metadata_history').values(part).execute();
}

/** The scanner's SQL: reads the library's current state, writes batches of changes in transactions. */
export class ScanRepository {
  private readonly bookInsert = new RepeatedInsert<DB, 'books'>('books');
  private readonly lists: ListSyncRepository;

  constructor(private readonly database: Database) {
    this.lists = new ListSyncRepository(database);
  }

  private get db() {
    return this.database.db;
  }

  library(id: string): Promise<Selectable<LibrariesTable> | undefined> {
    return this.db.selectFrom('libraries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether the library has any book row, deleted ones included (none: its first scan). */
  async hasBooks(libraryId: string): Promise<boolean> {
    const row = await this.db.selectFrom('books').select('id').where('library_id', '=', libraryId).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async bookIndex(libraryId: string): Promise<BookIndexRow[]> {
    const rows = await this.db
      .selectFrom('books')
      .select(['id', 'path', 'size', 'mtime_ms', 'hash', 'koreader_md5', 'series_id', 'deleted_at', 'analysis_error'])
      .where('library_id', '=', libraryId)
      .execute();
    return rows.map((r) => ({ ...r, size: Number(r.size), mtime_ms: Number(r.mtime_ms) }));
  }

  /** KOReader ids of books whose file did not change (computed for books analysed before the column existed). */
  async setKoreaderMd5(rows: ReadonlyArray<{ id: string; koreaderMd5: string }>): Promise<void> {
    for (const part of chunks(rows, INSERT_CHUNK)) {
      await this.db.transaction().execute(async (trx) => {
        for (const row of part) await trx.updateTable('books').set({ koreader_md5: row.koreaderMd5 }).where('id', '=', row.id).execute();
      });
    }
  }

  seriesIndex(libraryId: string): Promise<SeriesIndexRow[]> {
    return this.db
      .selectFrom('series')
      .select(['id', 'path', 'name', 'deleted_at', 'metadata'])
      .where('library_id', '=', libraryId)
      .execute();
  }

  /** Applies one batch of scan results atomically: a cancelled or killed scan leaves whole batches only. */
  async applyBatch(batch: CatalogBatch, now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const part of chunks(batch.newSeries, INSERT_CHUNK)) await trx.insertInto('series').values(part).execute();
      for (const part of chunks(batch.restoreSeries, IN_CHUNK)) {
        await trx.updateTable('series').set({ deleted_at: null, updated_at: now }).where('id', 'in', part).execute();
      }
      for (const part of chunks(batch.insertBooks, BOOK_INSERT_CHUNK)) {
        await this.bookInsert.execute(trx, part);
        await yieldToEventLoop();
      }
      for (const [i, { id, changes }] of batch.updateBooks.entries()) {
        await trx.updateTable('books').set(changes).where('id', '=', id).execute();
        if (i % BOOK_INSERT_CHUNK === BOOK_INSERT_CHUNK - 1) await yieldToEventLoop();
      }
      if (batch.metadata) await writeMetadata(trx, batch.metadata);
    });
  }

  /** Locked metadata fields of these books or series, with the file value each lock keeps (JSON text). */
  async locksOf(ids: readonly string[]): Promise<Map<string, Map<string, string>>> {
    const out = new Map<string, Map<string, string>>();
    for (const part of chunks(ids, IN_CHUNK)) {
      const rows = await this.db
        .selectFrom('metadata_locks')
        .select(['entity_id', 'field', 'file_value'])
        .where('entity_id', 'in', part)
        .execute();
      for (const r of rows) out.set(r.entity_id, (out.get(r.entity_id) ?? new Map<string, string>()).set(r.field, r.file_value));
    }
    return out;
  }

  /** Current values of the given columns, to skip updates that change nothing (deep scans). */
  async currentBookValues(ids: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const part of chunks(ids, IN_CHUNK)) {
      const rows = await this.db.selectFrom('books').selectAll().where('id', 'in', part).execute();
      for (const r of rows)
        out.set(r.id, {
          ...r,
          size: Number(r.size),
          mtime_ms: Number(r.mtime_ms),
          number_sort: r.number_sort === null ? null : Number(r.number_sort),
        });
    }
    return out;
  }

  async softDeleteBooks(ids: readonly string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const part of chunks(ids, IN_CHUNK)) {
        // `coalesce(...)` rather than `deleted_at is null`: the same test, but one SQLite cannot mistake for a
        // selective index condition (see BooksRepository.pagesOf); the ids are looked up by primary key.
        await trx
          .updateTable('books')
          .set({ deleted_at: now, updated_at: now })
          .where('id', 'in', part)
          .where(sql<SqlBool>`coalesce(deleted_at, '') = ''`)
          .execute();
      }
    });
  }

  async presentBooksOfSeries(seriesIds: readonly string[]): Promise<BookForSeries[]> {
    const out: BookForSeries[] = [];
    for (const part of chunks(seriesIds, IN_CHUNK)) {
      const rows = await this.db
        .selectFrom('books')
        .select(['series_id', 'path', 'metadata', 'number_sort', 'size', 'page_count'])
        .where('series_id', 'in', part)
        .where('deleted_at', 'is', null)
        .execute();
      for (const r of rows) out.push({ ...r, size: Number(r.size), number_sort: r.number_sort === null ? null : Number(r.number_sort) });
    }
    return out;
  }

  async seriesRows(ids: readonly string[]): Promise<SeriesRow[]> {
    const out: SeriesRow[] = [];
    for (const part of chunks(ids, IN_CHUNK))
      out.push(...(await this.db.selectFrom('series').selectAll().where('id', 'in', part).execute()));
    return out.map((r) => ({ ...r, total_size: Number(r.total_size) }));
  }

  async updateSeries(updates: readonly { id: string; changes: Updateable<SeriesTable> }[], metadata?: ScanMetadataWrites): Promise<void> {
    if (updates.length === 0 && !metadata?.lockValues.length && !metadata?.history.length) return;
    await this.db.transaction().execute(async (trx) => {
      for (const { id, changes } of updates) await trx.updateTable('series').set(changes).where('id', '=', id).execute();
      if (metadata) await writeMetadata(trx, metadata);
    });
  }

  /** Brings the shared lists scans make from ComicInfo in step with the present books (list-repository.ts). */
  syncComicInfoLists(): Promise<ListSyncResult> {
    return this.lists.sync();
  }

  async markScanned(libraryId: string, at: string): Promise<void> {
    await this.db.updateTable('libraries').set({ last_scanned_at: at }).where('id', '=', libraryId).execute();
  }

  /** Books to re-analyse (analyze_book / analyze_series tasks). */
  booksById(ids: readonly string[]): Promise<Selectable<BooksTable>[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('books')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  async presentBookIdsOfSeries(seriesId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('books').select('id').where('series_id', '=', seriesId).where('deleted_at', 'is', null).execute();
    return rows.map((r) => r.id);
  }

  book(id: string): Promise<Selectable<BooksTable> | undefined> {
    return this.db.selectFrom('books').selectAll().where('id', '=', id).executeTakeFirst();
  }

  series(id: string): Promise<SeriesRow | undefined> {
    return this.db.selectFrom('series').selectAll().where('id', '=', id).executeTakeFirst();
  }
}
