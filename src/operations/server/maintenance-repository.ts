import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** What maintenance needs to know of the books: which content hashes still belong to one. */
export class MaintenanceRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The hashes among `hashes` that some book (present or soft-deleted) has; looked up in slices of 500. */
  async knownHashes(hashes: readonly string[]): Promise<Set<string>> {
    const known = new Set<string>();
    // In slices: a huge cache must not become one giant IN list.
    for (let i = 0; i < hashes.length; i += 500) {
      const rows = await this.db
        .selectFrom('books')
        .select('hash')
        .where('hash', 'in', hashes.slice(i, i + 500))
        .execute();
      for (const r of rows) if (r.hash) known.add(r.hash);
    }
    return known;
  }
}
