import { randomUUID } from 'node:crypto';
import { bookVisible, type ContentScope, type Device } from '../../identity/index.js';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { ProgressEventsTable, ReadingActivityTable, ReadProgressTable, ReadThroughsTable } from '../../db/tables/reading.js';
export type ProgressRow = Selectable<ReadProgressTable>;
export type ProgressEventRow = Selectable<ProgressEventsTable>;
export type ProgressWithBook = ProgressRow & {
  title: string;
  number: string | null;
  series_id: string;
  series_name: string;
  library_id: string;
  page_count: number;
};

/** SQL of current progress and of the statistics records written with it. */
export class ProgressRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  get(userId: string, bookId: string): Promise<ProgressRow | undefined> {
    return this.db.selectFrom('read_progress').selectAll().where('user_id', '=', userId).where('book_id', '=', bookId).executeTakeFirst();
  }

  async save(row: ProgressRow, db: Pick<Database['db'], 'insertInto'> = this.db): Promise<void> {
    const { user_id: _u, book_id: _b, ...changes } = row;
    await db
      .insertInto('read_progress')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'book_id']).doUpdateSet(changes))
      .execute();
  }

  /** The position and the history event that moved it, together: a backup's snapshot or a crash never holds one without the other. */
  async saveWithEvent(row: ProgressRow, event: ProgressEventRow): Promise<void> {
    const trx = await this.db.startTransaction().execute();
    try {
      await this.save(row, trx);
      await trx.insertInto('progress_events').values(event).execute();
      await trx.commit().execute();
    } catch (err) {
      // The write's own error is what the caller must see (a full disk is a 507): SQLite may have rolled back
      // already, and a ROLLBACK of nothing would say only "no transaction is active".
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw err;
    }
  }

  async delete(userId: string, bookIds: readonly string[]): Promise<number> {
    if (bookIds.length === 0) return 0;
    const res = await this.db
      .deleteFrom('read_progress')
      .where('user_id', '=', userId)
      .where('book_id', 'in', [...bookIds])
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** The user's progress on present books, most recently updated first. */
  async list(
    userId: string,
    scope: ContentScope,
    inProgressOnly: boolean,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: ProgressWithBook[] }> {
    let query = this.db
      .selectFrom('read_progress as p')
      .innerJoin('books as b', 'b.id', 'p.book_id')
      .innerJoin('series as s', 's.id', 'b.series_id')
      .where('p.user_id', '=', userId)
      .where('b.deleted_at', 'is', null);
    if (!scope.all) query = query.where(bookVisible(scope, 'b'));
    if (inProgressOnly) query = query.where('p.is_completed', '=', 0);
    const [count, rows] = await Promise.all([
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      query
        .selectAll('p')
        .select(['b.title', 'b.number', 'b.series_id', 's.name as series_name', 'b.library_id', 'b.page_count'])
        .orderBy('p.updated_at', 'desc')
        .orderBy('p.book_id')
        .offset(offset)
        .limit(limit)
        .execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  /** Whether the user sent a position with this client id before (ProgressUpdate.entry_id). */
  /**
   * Every reader's position and history of one book given to another (a file moved between libraries is a new
   * book there): a reader who already has a position on the new book keeps it. Returns the positions carried.
   */
  async carryOver(fromBookId: string, toBookId: string): Promise<number> {
    const [positions, taken] = await Promise.all([
      this.db.selectFrom('read_progress').selectAll().where('book_id', '=', fromBookId).execute(),
      this.db.selectFrom('read_progress').select('user_id').where('book_id', '=', toBookId).execute(),
    ]);
    const has = new Set(taken.map((r) => r.user_id));
    const carried = positions.filter((p) => !has.has(p.user_id));
    if (carried.length === 0) return 0;
    const users = carried.map((p) => p.user_id);
    const events = await this.db
      .selectFrom('progress_events')
      .selectAll()
      .where('book_id', '=', fromBookId)
      .where('user_id', 'in', users)
      .execute();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('read_progress')
        .values(carried.map((p) => ({ ...p, book_id: toBookId })))
        .execute();
      for (let i = 0; i < events.length; i += 200)
        await trx
          .insertInto('progress_events')
          .values(events.slice(i, i + 200).map((e) => ({ ...e, id: randomUUID(), book_id: toBookId, client_entry_id: null })))
          .execute();
    });
    return carried.length;
  }

  async hasEntry(userId: string, entryId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('progress_events')
      .select('id')
      .where('user_id', '=', userId)
      .where('client_entry_id', '=', entryId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async appendEvent(row: ProgressEventRow): Promise<void> {
    await this.db.insertInto('progress_events').values(row).execute();
  }

  /** The user's events for a book, newest first (ties: the later id, uuid v7 sorts by time). */
  async events(userId: string, bookId: string, offset: number, limit: number): Promise<{ total: number; rows: ProgressEventRow[] }> {
    const query = this.db.selectFrom('progress_events').where('user_id', '=', userId).where('book_id', '=', bookId);
    const [count, rows] = await Promise.all([
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      query.selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  /** The event that set the current position: the latest applied one (an older position sent late is history only). */
  latestEvent(userId: string, bookId: string): Promise<ProgressEventRow | undefined> {
    return this.db
      .selectFrom('progress_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('book_id', '=', bookId)
      .where('applied', '=', 1)
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  event(userId: string, id: string): Promise<ProgressEventRow | undefined> {
    return this.db.selectFrom('progress_events').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  async addReadThrough(row: Insertable<ReadThroughsTable>): Promise<void> {
    await this.db.insertInto('read_throughs').values(row).execute();
  }

  /** Adds pages and time to the (user, day, book, device) activity row. */
  async addActivity(row: Omit<Selectable<ReadingActivityTable>, 'updates'>): Promise<void> {
    await this.db
      .insertInto('reading_activity')
      .values({ ...row, updates: 1 })
      .onConflict((oc) =>
        oc.columns(['user_id', 'day', 'book_id', 'device_id']).doUpdateSet({
          pages_read: sql`reading_activity.pages_read + ${row.pages_read}`,
          reading_ms: sql`reading_activity.reading_ms + ${row.reading_ms}`,
          updates: sql`reading_activity.updates + 1`,
          last_at: row.last_at,
          book_title: row.book_title,
          series_name: row.series_name,
        }),
      )
      .execute();
  }

  /** Records a write by the device: its detected name, last sync, User-Agent and protocol; a client identity it did not send is kept. */
  async touchDevice(
    userId: string,
    device: Device,
    at: string,
    write: { protocol: string; clientId?: string | null; clientName?: string | null },
  ): Promise<void> {
    const details = {
      user_agent: device.userAgent ?? null,
      last_protocol: write.protocol,
      client_device_id: write.clientId ?? null,
      client_name: write.clientName ?? null,
    };
    await this.db
      .insertInto('reading_devices')
      .values({
        user_id: userId,
        device_id: device.id,
        kind: device.kind,
        name: device.name,
        first_seen_at: at,
        last_seen_at: at,
        label: null,
        ...details,
      })
      .onConflict((oc) =>
        oc.columns(['user_id', 'device_id']).doUpdateSet({
          name: device.name,
          last_seen_at: at,
          last_protocol: details.last_protocol,
          user_agent: sql`coalesce(${details.user_agent}, reading_devices.user_agent)`,
          client_device_id: sql`coalesce(${details.client_device_id}, reading_devices.client_device_id)`,
          client_name: sql`coalesce(${details.client_name}, reading_devices.client_name)`,
        }),
      )
      .execute();
  }

  async apiKeyName(id: string): Promise<string | undefined> {
    return (await this.db.selectFrom('api_keys').select('name').where('id', '=', id).executeTakeFirst())?.name;
  }
}
