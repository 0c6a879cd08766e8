import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { FileDecisionLogTable, FileDecisionsTable } from '../../db/tables/watching.js';

export type DecisionRow = Selectable<FileDecisionsTable>;
export type DecisionLogRow = Selectable<FileDecisionLogTable>;

export interface ExplainBookRow {
  id: string;
  library_id: string;
  series_id: string;
  path: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  title: string;
  number: string | null;
  metadata: string;
  analysis_error: string | null;
  analyzed_at: string | null;
  deleted_at: string | null;
}

/** What the explainer reads: a file's book, its last decision and changes, its series' books and same-hash books. */
export class ExplainRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  private bookColumns = [
    'id',
    'library_id',
    'series_id',
    'path',
    'size',
    'mtime_ms',
    'hash',
    'title',
    'number',
    'metadata',
    'analysis_error',
    'analyzed_at',
    'deleted_at',
  ] as const;

  private normal(row: ExplainBookRow): ExplainBookRow {
    return { ...row, size: Number(row.size), mtime_ms: Number(row.mtime_ms) };
  }

  async bookAt(libraryId: string, path: string): Promise<ExplainBookRow | undefined> {
    const row = await this.db
      .selectFrom('books')
      .select(this.bookColumns)
      .where('library_id', '=', libraryId)
      .where('path', '=', path)
      .executeTakeFirst();
    return row && this.normal(row as ExplainBookRow);
  }

  async book(id: string): Promise<ExplainBookRow | undefined> {
    const row = await this.db.selectFrom('books').select(this.bookColumns).where('id', '=', id).executeTakeFirst();
    return row && this.normal(row as ExplainBookRow);
  }

  decision(libraryId: string, path: string): Promise<DecisionRow | undefined> {
    return this.db.selectFrom('file_decisions').selectAll().where('library_id', '=', libraryId).where('path', '=', path).executeTakeFirst();
  }

  /** The last changes of a path (or of the book, wherever it was), newest first. */
  history(libraryId: string, path: string, bookId: string | null, limit = 10): Promise<DecisionLogRow[]> {
    return this.db
      .selectFrom('file_decision_log')
      .selectAll()
      .where('library_id', '=', libraryId)
      .where((eb) => (bookId ? eb.or([eb('path', '=', path), eb('book_id', '=', bookId)]) : eb('path', '=', path)))
      .orderBy('decided_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  series(id: string) {
    return this.db.selectFrom('series').select(['id', 'name', 'path', 'metadata']).where('id', '=', id).executeTakeFirst();
  }

  /** The present books of a series: what its name is agreed from. */
  seriesBooks(seriesId: string) {
    return this.db
      .selectFrom('books')
      .select(['id', 'path', 'metadata'])
      .where('series_id', '=', seriesId)
      .where('deleted_at', 'is', null)
      .orderBy('path')
      .execute();
  }

  /** Other present books with the same content. */
  sameHash(hash: string, exceptId: string) {
    return this.db
      .selectFrom('books')
      .select(['id', 'library_id', 'series_id', 'path'])
      .where('hash', '=', hash)
      .where('id', '!=', exceptId)
      .where('deleted_at', 'is', null)
      .orderBy('path')
      .limit(20)
      .execute();
  }
}
