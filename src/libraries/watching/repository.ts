import type { Database } from '../../db/connection.js';

/**
 * Leases on libraries' watchers: one process watches a library at a time, however many instances share the
 * database. A lease is taken when it is free or expired, and renewed by its holder; a process that dies stops
 * renewing, and another instance takes over after `ttlMs`.
 */
export class WatchLeaseRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Takes or renews the lease of `libraryId` for `holder`; true when `holder` has it now. */
  async acquire(libraryId: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = new Date();
    const expires = new Date(now.getTime() + ttlMs).toISOString();
    await this.db
      .insertInto('library_watchers')
      .values({ library_id: libraryId, holder, expires_at: expires })
      .onConflict((oc) => oc.column('library_id').doNothing())
      .execute();
    const result = await this.db
      .updateTable('library_watchers')
      .set({ holder, expires_at: expires })
      .where('library_id', '=', libraryId)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now.toISOString())]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(libraryId: string, holder: string): Promise<void> {
    await this.db.deleteFrom('library_watchers').where('library_id', '=', libraryId).where('holder', '=', holder).execute();
  }
}
