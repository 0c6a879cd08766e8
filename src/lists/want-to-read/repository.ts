import { sql } from 'kysely';
import type { Database } from '../../db/connection.js';
import { type ContentScope, seriesVisible } from '../../identity/index.js';

/** SQL of each user's want-to-read shelf (table want_to_read). */
export class WantToReadRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** A page of the user's shelf, newest first: the present series the scope shows, and their total. */
  async list(userId: string, scope: ContentScope, offset: number, limit: number): Promise<{ total: number; ids: string[] }> {
    const from = sql`from want_to_read w join series s on s.id = w.series_id
      where w.user_id = ${userId} and s.deleted_at is null and ${seriesVisible(scope, 's')}`;
    const [count, rows] = await Promise.all([
      sql<{ n: number }>`select count(*) as n ${from}`.execute(this.db),
      sql<{ id: string }>`select s.id ${from} order by w.created_at desc, w.series_id desc limit ${limit} offset ${offset}`.execute(
        this.db,
      ),
    ]);
    return { total: Number(count.rows[0]?.n ?? 0), ids: rows.rows.map((r) => r.id) };
  }

  /** Puts a series on the shelf; one already there keeps the time it was first put. */
  async add(userId: string, seriesId: string, at: string): Promise<void> {
    await this.db
      .insertInto('want_to_read')
      .values({ user_id: userId, series_id: seriesId, created_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'series_id']).doNothing())
      .execute();
  }

  async remove(userId: string, seriesId: string): Promise<void> {
    await this.db.deleteFrom('want_to_read').where('user_id', '=', userId).where('series_id', '=', seriesId).execute();
  }
}
