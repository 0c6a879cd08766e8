import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { bookVisible, type ContentScope, EVERYTHING, seriesVisible } from '../identity/index.js';
import type { Database } from '../db/connection.js';
import type { LibrariesTable } from '../db/tables/catalog.js';

export type LibraryRow = Selectable<LibrariesTable>;

export interface LibraryCounts {
  series_count: number;
  book_count: number;
}

/** SQL of the libraries table, and the purge of soft-deleted books and series. */
export class LibraryRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  list(): Promise<LibraryRow[]> {
    return this.db.selectFrom('libraries').selectAll().orderBy('name').orderBy('id').execute();
  }

  /** `only`: these libraries (a restricted caller's); undefined or null: all. */
  count(only?: readonly string[] | null): Promise<number> {
    if (only && only.length === 0) return Promise.resolve(0);
    let q = this.db.selectFrom('libraries').select((eb) => eb.fn.countAll<number>().as('n'));
    if (only) q = q.where('id', 'in', [...only]);
    return q.executeTakeFirstOrThrow().then((r) => Number(r.n));
  }

  page(offset: number, limit: number, only?: readonly string[] | null): Promise<LibraryRow[]> {
    if (only && only.length === 0) return Promise.resolve([]);
    let q = this.db.selectFrom('libraries').selectAll();
    if (only) q = q.where('id', 'in', [...only]);
    return q.orderBy('name').orderBy('id').offset(offset).limit(limit).execute();
  }

  /** Which of these ids are libraries. */
  async existing(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (
      await this.db
        .selectFrom('libraries')
        .select('id')
        .where('id', 'in', [...ids])
        .execute()
    ).map((r) => r.id);
  }

  get(id: string): Promise<LibraryRow | undefined> {
    return this.db.selectFrom('libraries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Present series and books of each library that the scope shows. */
  async counts(ids: readonly string[], scope: ContentScope = EVERYTHING): Promise<Map<string, LibraryCounts>> {
    const out = new Map<string, LibraryCounts>(ids.map((id) => [id, { series_count: 0, book_count: 0 }]));
    if (ids.length === 0) return out;
    const [series, books] = await Promise.all([
      this.db
        .selectFrom('series')
        .select(['library_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('library_id', 'in', [...ids])
        .where('deleted_at', 'is', null)
        .where(seriesVisible(scope, 'series'))
        .groupBy('library_id')
        .execute(),
      this.db
        .selectFrom('books')
        .select(['library_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('library_id', 'in', [...ids])
        .where('deleted_at', 'is', null)
        .where(bookVisible(scope, 'books'))
        .groupBy('library_id')
        .execute(),
    ]);
    for (const r of series) out.get(r.library_id)!.series_count = Number(r.n);
    for (const r of books) out.get(r.library_id)!.book_count = Number(r.n);
    return out;
  }

  async insert(row: Insertable<LibrariesTable>): Promise<void> {
    await this.db.insertInto('libraries').values(row).execute();
  }

  async update(id: string, changes: Updateable<LibrariesTable>): Promise<void> {
    await this.db.updateTable('libraries').set(changes).where('id', '=', id).execute();
  }

  /** Present series ids, for the deletion events. */
  async seriesIds(libraryId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('series')
      .select('id')
      .where('library_id', '=', libraryId)
      .where('deleted_at', 'is', null)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Deletes the library with its series and books (foreign keys cascade, and so does every per-book table
   * that must go with the book, such as current reading progress; statistics have no such key and stay).
   */
  async delete(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('books').where('library_id', '=', id).execute();
      await trx.deleteFrom('series').where('library_id', '=', id).execute();
      const res = await trx.deleteFrom('libraries').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  /** Permanently removes soft-deleted books, then soft-deleted series that no longer hold any book. */
  async purgeDeleted(libraryId: string): Promise<{ books: { id: string; series_id: string }[]; series: string[] }> {
    return this.db.transaction().execute(async (trx) => {
      const books = await trx
        .deleteFrom('books')
        .where('library_id', '=', libraryId)
        .where('deleted_at', 'is not', null)
        .returning(['id', 'series_id'])
        .execute();
      const series = await trx
        .deleteFrom('series')
        .where('library_id', '=', libraryId)
        .where('deleted_at', 'is not', null)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('books').select('books.id').whereRef('books.series_id', '=', 'series.id'))))
        .returning('id')
        .execute();
      return { books, series: series.map((s) => s.id) };
    });
  }

  /**
   * The book whose cover stands for the library: the first readable book of its most recently added present
   * series. The series is chosen first (the newest one holding a present book, whatever the state of its
   * books), so when every book of that series failed analysis there is no cover book (the caller shows the
   * generated image) rather than the cover of an older series. Inside the series, books go in the order of the
   * series cover (books repository `firstOfSeries`): by number with unnumbered books last on both SQLite and
   * PostgreSQL (which otherwise put NULLs first and last respectively), then title, then id.
   */
  async latestSeriesCoverBook(
    libraryId: string,
    scope: ContentScope = EVERYTHING,
  ): Promise<{ series_id: string; book_id: string; path: string; format: string | null; cover_page: number | null } | undefined> {
    const latestSeries = this.db
      .selectFrom('series')
      .select('series.id')
      .where('series.library_id', '=', libraryId)
      .where('series.deleted_at', 'is', null)
      .where(seriesVisible(scope, 'series'))
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('books as present')
            .select('present.id')
            .whereRef('present.series_id', '=', 'series.id')
            .where('present.deleted_at', 'is', null),
        ),
      )
      .orderBy('series.created_at', 'desc')
      .orderBy('series.id', 'desc')
      .limit(1);
    return this.db
      .selectFrom('books')
      .select(['books.series_id', 'books.id as book_id', 'books.path', 'books.format', 'books.cover_page'])
      .where('books.series_id', '=', latestSeries)
      .where('books.deleted_at', 'is', null)
      .where('books.analysis_error', 'is', null)
      .orderBy(sql`case when books.number_sort is null then 1 else 0 end`)
      .orderBy('books.number_sort')
      .orderBy('books.title')
      .orderBy('books.id')
      .limit(1)
      .executeTakeFirst();
  }
}
