import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database } from '../../../db/connection.js';
import type { KoboDevicesTable } from '../../../db/tables/kobo.js';
import { bookVisible, type ContentScope } from '../../../identity/index.js';
export type KoboDeviceRow = Selectable<KoboDevicesTable>;

/** Which books a device syncs beyond the access rules: none of these set means every visible book. */
export interface KoboSelection {
  collections?: string[];
  read_lists?: string[];
  want_to_read?: boolean;
  /** Comics are delivered in shades of grey (a black-and-white e-ink screen). */
  greyscale?: boolean;
  /** EPUBs are delivered as KEPUB (absent: they are). */
  kepub?: boolean;
  /** The screen comics are fitted to (absent: DEFAULT_SCREEN; null: the pages' own size). */
  screen?: { width: number; height: number } | null;
}

/** The formats a Kobo gets: EPUB as it is; comics and PDF as fixed-layout EPUB. */
export const SYNCED_FORMATS = ['epub', 'cbz', 'cbr', 'pdf'] as const;

/** A book as the sync describes it. */
export interface KoboBookRow {
  id: string;
  title: string;
  format: string;
  size: number;
  hash: string | null;
  number: string | null;
  number_sort: number | null;
  summary: string | null;
  publisher: string | null;
  language: string | null;
  isbn: string | null;
  year: number | null;
  authors: string;
  pages: string;
  page_count: number;
  cover_page: number | null;
  series_id: string;
  series_name: string;
  created_at: string;
  updated_at: string;
  /** The caller's reading position's time ('' none): the progress stamp. */
  progress_at: string;
}

/** A chosen collection or read list as a shelf on the device: the books of it that the device has. */
export interface KoboShelf {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  bookIds: string[];
}

/** What the device was sent of one book, and what changed since. */
export type SyncChange = 'new' | 'changed' | 'reading_state';

/** The stamp of a book's entitlement and metadata: changes when a scan or an edit changes the book. */
export const metadataStamp = sql<string>`b.updated_at || '|' || coalesce(b.hash, '')`;

/** SQL of Kobo devices: their settings and what each was sent. */
export class KoboRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** The device of an API key, created on its first request. */
  async device(apiKeyId: string, userId: string, koboDeviceId: string | null, now: string): Promise<KoboDeviceRow> {
    await this.db
      .insertInto('kobo_devices')
      .values({
        api_key_id: apiKeyId,
        user_id: userId,
        kobo_device_id: koboDeviceId,
        selection: '{}',
        generation: 0,
        last_sync_at: null,
        delivery_problem: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('api_key_id').doNothing())
      .execute();
    const row = await this.db.selectFrom('kobo_devices').selectAll().where('api_key_id', '=', apiKeyId).executeTakeFirstOrThrow();
    if (koboDeviceId && row.kobo_device_id !== koboDeviceId) {
      await this.db.updateTable('kobo_devices').set({ kobo_device_id: koboDeviceId }).where('api_key_id', '=', apiKeyId).execute();
      row.kobo_device_id = koboDeviceId;
    }
    return row;
  }

  findDevice(apiKeyId: string): Promise<KoboDeviceRow | undefined> {
    return this.db.selectFrom('kobo_devices').selectAll().where('api_key_id', '=', apiKeyId).executeTakeFirst();
  }

  /** The user's API keys holding `kobo-sync` (the JSON text of their permissions names it), with their device row. */
  async keysOf(
    userId: string,
  ): Promise<
    { id: string; name: string; key_prefix: string; created_at: string; last_used_at: string | null; device: KoboDeviceRow | null }[]
  > {
    const keys = await this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'key_prefix', 'permissions', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .where('permissions', 'like', '%"kobo-sync"%')
      .orderBy('created_at')
      .execute();
    const devices = keys.length
      ? await this.db
          .selectFrom('kobo_devices')
          .selectAll()
          .where(
            'api_key_id',
            'in',
            keys.map((k) => k.id),
          )
          .execute()
      : [];
    const byKey = new Map(devices.map((d) => [d.api_key_id, d]));
    return keys.map(({ permissions: _p, ...k }) => ({ ...k, device: byKey.get(k.id) ?? null }));
  }

  async setSelection(apiKeyId: string, selection: string, now: string): Promise<void> {
    await this.db.updateTable('kobo_devices').set({ selection, updated_at: now }).where('api_key_id', '=', apiKeyId).execute();
  }

  /**
   * The device is to get these formats' books again (how they are delivered changed): the next sync sends those it
   * holds as changed, with their new download links.
   */
  async resend(apiKeyId: string, formats: readonly string[]): Promise<void> {
    if (formats.length === 0) return;
    await this.db
      .updateTable('kobo_synced_books')
      .set({ metadata_stamp: '' })
      .where('api_key_id', '=', apiKeyId)
      .where('removed', '=', 0)
      .where('book_id', 'in', (eb) =>
        eb
          .selectFrom('books')
          .select('books.id')
          .where('books.format', 'in', [...formats]),
      )
      .execute();
  }

  /** The next response's generation (atomic: two instances answering the same device never share one). */
  async nextGeneration(apiKeyId: string, now: string): Promise<number> {
    const row = await this.db
      .updateTable('kobo_devices')
      .set({ generation: sql<number>`generation + 1`, last_sync_at: now })
      .where('api_key_id', '=', apiKeyId)
      .returning('generation')
      .executeTakeFirstOrThrow();
    return Number(row.generation);
  }

  /**
   * The device echoed generation `acknowledged` (null: no token, a device syncing from scratch). What later
   * responses sent never reached it: those rows are forgotten, so their books go again; removals it received are done.
   */
  async acknowledge(apiKeyId: string, acknowledged: number | null): Promise<void> {
    if (acknowledged === null) await this.db.deleteFrom('kobo_synced_tags').where('api_key_id', '=', apiKeyId).execute();
    else
      await this.db
        .deleteFrom('kobo_synced_tags')
        .where('api_key_id', '=', apiKeyId)
        .where((eb) =>
          eb.or([
            eb.and([eb('generation', '>', acknowledged), eb('removed', '=', 0)]),
            eb.and([eb('generation', '<=', acknowledged), eb('removed', '=', 1)]),
          ]),
        )
        .execute();
    if (acknowledged === null) {
      await this.db.deleteFrom('kobo_synced_books').where('api_key_id', '=', apiKeyId).where('removed', '<>', 2).execute();
      return;
    }
    await this.db
      .deleteFrom('kobo_synced_books')
      .where('api_key_id', '=', apiKeyId)
      .where((eb) =>
        eb.or([
          eb.and([eb('generation', '>', acknowledged), eb('removed', '=', 0)]),
          eb.and([eb('generation', '<=', acknowledged), eb('removed', '=', 1)]),
        ]),
      )
      .execute();
    // A removal the device never got: the book (shelf) is still there, and the next pass sends the removal again.
    for (const table of ['kobo_synced_books', 'kobo_synced_tags'] as const)
      await this.db
        .updateTable(table)
        .set({ removed: 0 })
        .where('api_key_id', '=', apiKeyId)
        .where('generation', '>', acknowledged)
        .where('removed', '=', 1)
        .execute();
  }

  /**
   * The chosen collections and read lists the user may still use, each with its books that are on the device's list
   * (in the list's order): the device's shelves.
   */
  async shelves(userId: string, scope: ContentScope, selection: KoboSelection): Promise<KoboShelf[]> {
    const eligible = this.eligible(scope, userId, selection);
    const out: KoboShelf[] = [];
    const owned = (alias: string) =>
      sql<SqlBool>`(${sql.ref(`${alias}.owner_user_id`)} is null or ${sql.ref(`${alias}.owner_user_id`)} = ${userId})`;
    const lists = async (table: 'collections' | 'read_lists', ids: readonly string[] | undefined) =>
      ids?.length
        ? (
            await sql<{ id: string; name: string; created_at: string; updated_at: string }>`select l.id, l.name, l.created_at, l.updated_at
              from ${sql.table(table)} l where l.id in (${sql.join([...ids])}) and ${owned('l')} order by l.name_key, l.id`.execute(this.db)
          ).rows
        : [];
    for (const list of await lists('collections', selection.collections)) {
      const { rows } = await sql<{ id: string }>`select b.id from books b join collection_series cs on cs.series_id = b.series_id
        where cs.collection_id = ${list.id} and ${eligible} order by cs.position, b.number_sort, b.id`.execute(this.db);
      out.push({ ...list, bookIds: rows.map((r) => r.id) });
    }
    for (const list of await lists('read_lists', selection.read_lists)) {
      const { rows } = await sql<{ id: string }>`select b.id from read_list_items ri join books b on b.id = ri.book_id
        where ri.read_list_id = ${list.id} and ${eligible} order by ri.position, b.id`.execute(this.db);
      out.push({ ...list, bookIds: [...new Set(rows.map((r) => r.id))] });
    }
    return out;
  }

  /** The shelves the device was sent and holds (not removed). */
  async syncedShelves(apiKeyId: string): Promise<{ tag_id: string; stamp: string }[]> {
    return this.db
      .selectFrom('kobo_synced_tags')
      .select(['tag_id', 'stamp'])
      .where('api_key_id', '=', apiKeyId)
      .where('removed', '=', 0)
      .execute();
  }

  async shelvesSent(
    apiKeyId: string,
    generation: number,
    sent: readonly { tag_id: string; stamp: string }[],
    removedIds: readonly string[],
  ) {
    for (const row of sent)
      await this.db
        .insertInto('kobo_synced_tags')
        .values({ api_key_id: apiKeyId, tag_id: row.tag_id, stamp: row.stamp, removed: 0, generation })
        .onConflict((oc) => oc.columns(['api_key_id', 'tag_id']).doUpdateSet({ stamp: row.stamp, removed: 0, generation }))
        .execute();
    if (removedIds.length > 0)
      await this.db
        .updateTable('kobo_synced_tags')
        .set({ removed: 1, generation })
        .where('api_key_id', '=', apiKeyId)
        .where('tag_id', 'in', [...removedIds])
        .execute();
  }

  /** The books that belong on the device, as a condition on `b` (a books row). */
  private eligible(scope: ContentScope, userId: string, selection: KoboSelection): RawBuilder<SqlBool> {
    const parts: RawBuilder<SqlBool>[] = [
      sql<SqlBool>`b.deleted_at is null`,
      sql<SqlBool>`b.format in (${sql.join([...SYNCED_FORMATS])})`,
      sql<SqlBool>`b.page_count > 0`,
      sql<SqlBool>`b.analysis_error is null`,
    ];
    if (!scope.all) parts.push(bookVisible(scope, 'b'));
    const chosen: RawBuilder<SqlBool>[] = [];
    // A list is the device's only while its owner may still use it: shared, or the key's user's own.
    const owned = (alias: string) =>
      sql<SqlBool>`(${sql.ref(`${alias}.owner_user_id`)} is null or ${sql.ref(`${alias}.owner_user_id`)} = ${userId})`;
    if (selection.collections?.length)
      chosen.push(
        sql<SqlBool>`b.series_id in (select cs.series_id from collection_series cs join collections kc on kc.id = cs.collection_id where kc.id in (${sql.join(selection.collections)}) and ${owned('kc')})`,
      );
    if (selection.read_lists?.length)
      chosen.push(
        sql<SqlBool>`b.id in (select ri.book_id from read_list_items ri join read_lists kr on kr.id = ri.read_list_id where ri.book_id is not null and kr.id in (${sql.join(selection.read_lists)}) and ${owned('kr')})`,
      );
    if (selection.want_to_read)
      chosen.push(sql<SqlBool>`b.series_id in (select w.series_id from want_to_read w where w.user_id = ${userId})`);
    if (chosen.length > 0) parts.push(sql<SqlBool>`(${sql.join(chosen, sql` or `)})`);
    return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  }

  /**
   * Up to `limit` books whose state on the device is behind: not sent yet (`new`), changed since (`changed`), or
   * only their reading position moved (`reading_state`), in that order.
   */
  async behind(
    apiKeyId: string,
    userId: string,
    scope: ContentScope,
    selection: KoboSelection,
    limit: number,
  ): Promise<{ change: SyncChange; book: KoboBookRow }[]> {
    const eligible = this.eligible(scope, userId, selection);
    const columns = sql`b.id, b.title, b.format, b.size, b.hash, b.number, b.number_sort, b.summary, b.publisher, b.language,
      b.isbn, b.year, b.authors, b.pages, b.page_count, b.cover_page, b.series_id, s.name as series_name, b.created_at,
      b.updated_at, coalesce(rp.updated_at, '') as progress_at`;
    const from = sql`books b join series s on s.id = b.series_id
      left join read_progress rp on rp.book_id = b.id and rp.user_id = ${userId}
      left join kobo_synced_books k on k.book_id = b.id and k.api_key_id = ${apiKeyId}`;
    const out: { change: SyncChange; book: KoboBookRow }[] = [];
    const take = async (change: SyncChange, condition: RawBuilder<SqlBool>, order: RawBuilder<unknown>) => {
      if (out.length >= limit) return;
      const { rows } = await sql<KoboBookRow>`select ${columns} from ${from} where ${eligible} and ${condition}
        order by ${order} limit ${limit - out.length}`.execute(this.db);
      for (const book of rows) out.push({ change, book: { ...book, size: Number(book.size), page_count: Number(book.page_count) } });
    };
    await take('new', sql<SqlBool>`k.book_id is null`, sql`b.created_at, b.id`);
    await take('changed', sql<SqlBool>`k.removed = 0 and k.metadata_stamp <> ${metadataStamp}`, sql`b.updated_at, b.id`);
    await take(
      'reading_state',
      sql<SqlBool>`k.removed = 0 and k.metadata_stamp = ${metadataStamp} and k.progress_stamp <> coalesce(rp.updated_at, '')`,
      sql`rp.updated_at, b.id`,
    );
    return out;
  }

  /** Up to `limit` books the device holds that no longer belong there (gone, hidden, out of the selection). */
  async removed(apiKeyId: string, userId: string, scope: ContentScope, selection: KoboSelection, limit: number): Promise<string[]> {
    const { rows } = await sql<{ book_id: string }>`select k.book_id from kobo_synced_books k
      where k.api_key_id = ${apiKeyId} and k.removed = 0
      and not exists (select 1 from books b where b.id = k.book_id and ${this.eligible(scope, userId, selection)})
      order by k.book_id limit ${limit}`.execute(this.db);
    return rows.map((r) => r.book_id);
  }

  /** Records what a response sent: the books' stamps, or their removal, under its generation. */
  async sent(apiKeyId: string, generation: number, books: readonly KoboBookRow[], removedIds: readonly string[]): Promise<void> {
    for (const book of books) {
      const row = {
        api_key_id: apiKeyId,
        book_id: book.id,
        metadata_stamp: `${book.updated_at}|${book.hash ?? ''}`,
        progress_stamp: book.progress_at,
        removed: 0,
        generation,
      };
      await this.db
        .insertInto('kobo_synced_books')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['api_key_id', 'book_id']).doUpdateSet({
            metadata_stamp: row.metadata_stamp,
            progress_stamp: row.progress_stamp,
            removed: 0,
            generation,
          }),
        )
        .execute();
    }
    if (removedIds.length > 0)
      await this.db
        .updateTable('kobo_synced_books')
        .set({ removed: 1, generation })
        .where('api_key_id', '=', apiKeyId)
        .where('book_id', 'in', [...removedIds])
        .execute();
  }

  /** The device's last delivery that fell back (JSON), or null to clear it. */
  async setDeliveryProblem(apiKeyId: string, problem: string | null): Promise<void> {
    await this.db.updateTable('kobo_devices').set({ delivery_problem: problem }).where('api_key_id', '=', apiKeyId).execute();
  }

  /** The device wrote this position itself: it is not sent back to it. */
  async progressFromDevice(apiKeyId: string, bookId: string, progressAt: string): Promise<void> {
    await this.db
      .updateTable('kobo_synced_books')
      .set({ progress_stamp: progressAt })
      .where('api_key_id', '=', apiKeyId)
      .where('book_id', '=', bookId)
      .where('removed', '=', 0)
      .execute();
  }

  /** The device archived (deleted) the book: it is not sent again (removed = 2 stays until the key goes). */
  async archived(apiKeyId: string, bookId: string, generation: number): Promise<void> {
    await this.db
      .insertInto('kobo_synced_books')
      .values({ api_key_id: apiKeyId, book_id: bookId, metadata_stamp: '', progress_stamp: '', removed: 2, generation })
      .onConflict((oc) => oc.columns(['api_key_id', 'book_id']).doUpdateSet({ removed: 2 }))
      .execute();
  }

  /** One book as the sync describes it, when it belongs on this device. */
  async book(userId: string, scope: ContentScope, bookId: string): Promise<KoboBookRow | undefined> {
    const { rows } = await sql<KoboBookRow>`select b.id, b.title, b.format, b.size, b.hash, b.number, b.number_sort, b.summary,
      b.publisher, b.language, b.isbn, b.year, b.authors, b.pages, b.page_count, b.cover_page, b.series_id,
      s.name as series_name, b.created_at, b.updated_at, coalesce(rp.updated_at, '') as progress_at
      from books b join series s on s.id = b.series_id
      left join read_progress rp on rp.book_id = b.id and rp.user_id = ${userId}
      where b.id = ${bookId} and ${this.eligible(scope, userId, {})}`.execute(this.db);
    const book = rows[0];
    return book && { ...book, size: Number(book.size), page_count: Number(book.page_count) };
  }
}
