import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * SQLite only: `series_read_counts`, per user and series, the present books (deleted_at null) the user finished
 * and has started without finishing, kept by triggers so that every writer (progress, the scanner's soft
 * deletes, restores and moves, purges) keeps it right without knowing about it.
 *
 * Why: series lists show the caller's read counts for every row; computed from read_progress that is one probe
 * per book of the page (250 for a 50-series page), ~15% of a list request, on SQLite's event loop. Here it is one
 * row per series. PostgreSQL computes the counts in the query as before (off the event loop, and a table kept by
 * triggers there would need locking between concurrent progress writes).
 *
 * A pair is recomputed from scratch whenever one of its inputs changes (a progress row's completion, a book's
 * series or deleted_at); pairs with nothing counted have no row. Books are deleted with their progress rows
 * first (BEFORE DELETE), so the recount still finds the book's series.
 */
export const seriesReadCounts: DialectMigration = {
  async up(db: Kysely<unknown>, dialect) {
    if (dialect !== 'sqlite') return;
    for (const statement of SQLITE_STATEMENTS) await sql.raw(statement).execute(db);
  },
};

/** Recounts the pairs (user in `users`, series in `series`) from read_progress and present books. */
const recount = (users: string, series: string) => `
  DELETE FROM series_read_counts WHERE user_id IN (${users}) AND series_id IN (${series});
  INSERT INTO series_read_counts (user_id, series_id, read_count, in_progress_count)
    SELECT p.user_id, b.series_id, sum(p.is_completed = 1), sum(p.is_completed = 0)
    FROM books b JOIN read_progress p ON p.book_id = b.id
    WHERE b.series_id IN (${series}) AND b.deleted_at IS NULL AND p.user_id IN (${users})
    GROUP BY p.user_id, b.series_id;`;

const seriesOf = (bookId: string) => `SELECT series_id FROM books WHERE id = ${bookId}`;

const SQLITE_STATEMENTS = [
  `CREATE TABLE series_read_counts (
     user_id TEXT NOT NULL, series_id TEXT NOT NULL, read_count INTEGER NOT NULL, in_progress_count INTEGER NOT NULL,
     PRIMARY KEY (user_id, series_id)) WITHOUT ROWID`,
  `INSERT INTO series_read_counts (user_id, series_id, read_count, in_progress_count)
     SELECT p.user_id, b.series_id, sum(p.is_completed = 1), sum(p.is_completed = 0)
     FROM books b JOIN read_progress p ON p.book_id = b.id WHERE b.deleted_at IS NULL GROUP BY p.user_id, b.series_id`,
  `CREATE TRIGGER series_read_counts_progress_insert AFTER INSERT ON read_progress BEGIN
     ${recount('new.user_id', seriesOf('new.book_id'))}
   END`,
  `CREATE TRIGGER series_read_counts_progress_update AFTER UPDATE OF is_completed, book_id, user_id ON read_progress
   WHEN old.is_completed IS NOT new.is_completed OR old.book_id IS NOT new.book_id OR old.user_id IS NOT new.user_id BEGIN
     ${recount('new.user_id', seriesOf('new.book_id'))}
     ${recount('old.user_id', seriesOf('old.book_id'))}
   END`,
  `CREATE TRIGGER series_read_counts_progress_delete AFTER DELETE ON read_progress BEGIN
     ${recount('old.user_id', seriesOf('old.book_id'))}
   END`,
  `CREATE TRIGGER series_read_counts_book_update AFTER UPDATE OF deleted_at, series_id ON books
   WHEN old.deleted_at IS NOT new.deleted_at OR old.series_id IS NOT new.series_id BEGIN
     ${recount('SELECT user_id FROM read_progress WHERE book_id = new.id', 'old.series_id, new.series_id')}
   END`,
  `CREATE TRIGGER series_read_counts_book_delete BEFORE DELETE ON books BEGIN
     DELETE FROM read_progress WHERE book_id = old.id;
   END`,
];
