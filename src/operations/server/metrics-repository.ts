import { statSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.js';

export interface CatalogCounts {
  libraries: number;
  series: number;
  books: number;
  pages: number;
  books_with_errors: number;
}

export class MetricsRepository {
  constructor(
    private readonly database: Database,
    private readonly sqlitePath: string,
  ) {}

  async catalogCounts(): Promise<CatalogCounts> {
    const db = this.database.db;
    const [libraries, series, books] = await Promise.all([
      db
        .selectFrom('libraries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('series')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('books')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.coalesce(eb.fn.sum<number>('page_count'), sql<number>`0`).as('pages'),
          eb.fn.count<number>('analysis_error').as('errors'),
        ])
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      libraries: Number(libraries.n),
      series: Number(series.n),
      books: Number(books.n),
      pages: Number(books.pages),
      books_with_errors: Number(books.errors),
    };
  }

  /** Tasks by status now, and how many finished in the last hour. */
  async taskCounts(): Promise<{ by_status: Record<string, number>; finished_last_hour: number; failed_last_hour: number }> {
    const db = this.database.db;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const [byStatus, recent] = await Promise.all([
      db
        .selectFrom('tasks')
        .select(['status'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .groupBy('status')
        .execute(),
      db
        .selectFrom('tasks')
        .select(['status'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('finished_at', '>=', since)
        .groupBy('status')
        .execute(),
    ]);
    const counts: Record<string, number> = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const r of byStatus) counts[r.status] = Number(r.n);
    const recentBy = new Map(recent.map((r) => [r.status as string, Number(r.n)]));
    return { by_status: counts, finished_last_hour: recentBy.get('completed') ?? 0, failed_last_hour: recentBy.get('failed') ?? 0 };
  }

  /** Bytes on disk: the SQLite file with its WAL, or PostgreSQL's own figure for this database. */
  async databaseSize(): Promise<number> {
    if (this.database.dialect === 'postgres') {
      const row = await sql<{ size: number }>`select pg_database_size(current_database()) as size`.execute(this.database.db);
      return Number(row.rows[0]?.size ?? 0);
    }
    let total = 0;
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        total += statSync(`${this.sqlitePath}${suffix}`).size;
      } catch {
        // absent WAL or in-memory database
      }
    }
    return total;
  }
}
