import { type ContentScope, seriesIdVisible } from '../../identity/index.js';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.js';

export interface ActivityTotals {
  pages_read: number;
  reading_ms: number;
  books_completed: number;
}

const purged = sql`not exists (select 1 from books b where b.id = a.book_id)`;
const purgedThrough = sql`not exists (select 1 from books b where b.id = t.book_id)`;

/** SQL of reading statistics; reads only the statistics tables (and books, to tell purged books apart). */
export class StatsRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  async totals(userId: string, removedOnly = false): Promise<ActivityTotals> {
    const [activity, throughs] = await Promise.all([
      sql<{
        pages: number | null;
        ms: number | null;
      }>`select sum(a.pages_read) as pages, sum(a.reading_ms) as ms from reading_activity a where a.user_id = ${userId}${removedOnly ? sql` and ${purged}` : sql``}`.execute(
        this.db,
      ),
      sql<{
        n: number;
      }>`select count(*) as n from read_throughs t where t.user_id = ${userId}${removedOnly ? sql` and ${purgedThrough}` : sql``}`.execute(
        this.db,
      ),
    ]);
    return {
      pages_read: Number(activity.rows[0]?.pages ?? 0),
      reading_ms: Number(activity.rows[0]?.ms ?? 0),
      books_completed: Number(throughs.rows[0]?.n ?? 0),
    };
  }

  /** Days with activity, ascending (YYYY-MM-DD). */
  async activeDays(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('reading_activity')
      .select('day')
      .distinct()
      .where('user_id', '=', userId)
      .orderBy('day')
      .execute();
    return rows.map((r) => r.day);
  }

  async perDay(userId: string, fromDay: string): Promise<Map<string, ActivityTotals>> {
    const [activity, throughs] = await Promise.all([
      sql<{
        day: string;
        pages: number;
        ms: number;
      }>`select a.day, sum(a.pages_read) as pages, sum(a.reading_ms) as ms from reading_activity a where a.user_id = ${userId} and a.day >= ${fromDay} group by a.day`.execute(
        this.db,
      ),
      sql<{
        day: string;
        n: number;
      }>`select substr(t.completed_at, 1, 10) as day, count(*) as n from read_throughs t where t.user_id = ${userId} and t.completed_at >= ${fromDay} group by substr(t.completed_at, 1, 10)`.execute(
        this.db,
      ),
    ]);
    const out = new Map<string, ActivityTotals>();
    const at = (day: string) => out.get(day) ?? out.set(day, { pages_read: 0, reading_ms: 0, books_completed: 0 }).get(day)!;
    for (const r of activity.rows) Object.assign(at(r.day), { pages_read: Number(r.pages), reading_ms: Number(r.ms) });
    for (const r of throughs.rows) at(r.day).books_completed = Number(r.n);
    return out;
  }

  async perDevice(
    userId: string,
  ): Promise<Array<ActivityTotals & { device_id: string; kind: string; name: string; last_seen_at: string }>> {
    const [devices, activity, throughs] = await Promise.all([
      this.db.selectFrom('reading_devices').selectAll().where('user_id', '=', userId).execute(),
      sql<{
        device_id: string;
        pages: number;
        ms: number;
      }>`select a.device_id, sum(a.pages_read) as pages, sum(a.reading_ms) as ms from reading_activity a where a.user_id = ${userId} group by a.device_id`.execute(
        this.db,
      ),
      sql<{
        device_id: string;
        n: number;
      }>`select t.device_id, count(*) as n from read_throughs t where t.user_id = ${userId} group by t.device_id`.execute(this.db),
    ]);
    const act = new Map(activity.rows.map((r) => [r.device_id, r]));
    const done = new Map(throughs.rows.map((r) => [r.device_id, Number(r.n)]));
    return devices
      .map((d) => ({
        device_id: d.device_id,
        kind: d.kind,
        name: d.label ?? d.name,
        last_seen_at: d.last_seen_at,
        pages_read: Number(act.get(d.device_id)?.pages ?? 0),
        reading_ms: Number(act.get(d.device_id)?.ms ?? 0),
        books_completed: done.get(d.device_id) ?? 0,
      }))
      .sort((a, b) => b.reading_ms - a.reading_ms || b.pages_read - a.pages_read || a.device_id.localeCompare(b.device_id));
  }

  /** Series of books still in the library that the user sees, by reading time then pages. */
  async topSeries(
    userId: string,
    limit: number,
    scope: ContentScope,
  ): Promise<Array<ActivityTotals & { series_id: string; name: string }>> {
    const rows = await sql<{ series_id: string; name: string; pages: number; ms: number }>`
      select a.series_id, max(coalesce(s.name, a.series_name)) as name, sum(a.pages_read) as pages, sum(a.reading_ms) as ms
      from reading_activity a left join series s on s.id = a.series_id
      where a.user_id = ${userId} and not ${purged} and ${seriesIdVisible(scope, 'a.series_id')}
      group by a.series_id order by sum(a.reading_ms) desc, sum(a.pages_read) desc, a.series_id limit ${limit}`.execute(this.db);
    const ids = rows.rows.map((r) => r.series_id);
    const done = new Map<string, number>();
    if (ids.length > 0) {
      const throughs = await sql<{
        series_id: string;
        n: number;
      }>`select t.series_id, count(*) as n from read_throughs t where t.user_id = ${userId} and t.series_id in (${sql.join(ids)}) and not ${purgedThrough} group by t.series_id`.execute(
        this.db,
      );
      for (const r of throughs.rows) done.set(r.series_id, Number(r.n));
    }
    return rows.rows.map((r) => ({
      series_id: r.series_id,
      name: r.name,
      pages_read: Number(r.pages),
      reading_ms: Number(r.ms),
      books_completed: done.get(r.series_id) ?? 0,
    }));
  }

  /** Titles of purged books with recorded activity or read-throughs. */
  async removedTitles(userId: string, limit: number): Promise<Array<{ book_id: string; title: string; series_name: string }>> {
    const rows = await sql<{ book_id: string; title: string; series_name: string }>`
      select a.book_id, max(a.book_title) as title, max(a.series_name) as series_name from reading_activity a
      where a.user_id = ${userId} and ${purged} group by a.book_id
      union
      select t.book_id, max(t.book_title) as title, max(t.series_name) as series_name from read_throughs t
      where t.user_id = ${userId} and ${purgedThrough} group by t.book_id
      order by title limit ${limit}`.execute(this.db);
    const seen = new Set<string>();
    return rows.rows.filter((r) => !seen.has(r.book_id) && seen.add(r.book_id));
  }
}
