import type { Database } from '../../db/connection.js';
import { toJsonColumn } from '../../db/json-column.js';

/** SQL of the kept answers of online databases (`metadata_responses`). */
export class ResponseCacheRepository {
  constructor(private readonly database: Database) {}

  /** The answer kept for this request, unless it has expired by `now`. */
  async get(provider: string, requestKey: string, now: Date): Promise<unknown> {
    const row = await this.database.db
      .selectFrom('metadata_responses')
      .select(['body'])
      .where('provider', '=', provider)
      .where('request_key', '=', requestKey)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return row ? (JSON.parse(row.body) as unknown) : undefined;
  }

  async put(provider: string, requestKey: string, body: unknown, now: Date, ttlMs: number): Promise<void> {
    const row = {
      body: toJsonColumn(body),
      fetched_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    };
    await this.database.db
      .insertInto('metadata_responses')
      .values({ provider, request_key: requestKey, ...row })
      .onConflict((c) => c.columns(['provider', 'request_key']).doUpdateSet(row))
      .execute();
  }

  /** Removes the answers expired by `now`; how many. */
  async pruneExpired(now: Date): Promise<number> {
    const result = await this.database.db.deleteFrom('metadata_responses').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
