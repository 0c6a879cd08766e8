import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface CoverSource {
  id: string;
  series_id: string;
  library_id: string;
  library_path: string;
  path: string;
  format: string | null;
  hash: string;
}

export class CoversRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Present, readable books of a library (or of one series), the ones a cover can be made for. */
  sources(scope: { libraryId?: string; seriesId?: string }): Promise<CoverSource[]> {
    let q = this.db
      .selectFrom('books as b')
      .innerJoin('libraries as l', 'l.id', 'b.library_id')
      .select(['b.id', 'b.series_id', 'b.library_id', 'l.path as library_path', 'b.path', 'b.format', 'b.hash'])
      .where('b.deleted_at', 'is', null)
      .where('b.hash', 'is not', null)
      .where('b.page_count', '>', 0)
      .orderBy('b.library_id')
      .orderBy('b.path');
    if (scope.libraryId) q = q.where('b.library_id', '=', scope.libraryId);
    if (scope.seriesId) q = q.where('b.series_id', '=', scope.seriesId);
    return q.execute() as Promise<CoverSource[]>;
  }
}
