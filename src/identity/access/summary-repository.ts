import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { bookVisible, seriesVisible } from './scope-sql.js';
import { inScope, type ContentScope } from './scope.js';

/** What a scope shows of the catalog, beside what there is ("sees 412 of 530 series in 2 of 3 libraries"). */
export interface AccessSummary {
  libraries_visible: number;
  libraries_total: number;
  series_visible: number;
  series_total: number;
  books_visible: number;
  books_total: number;
}

/** Counts by the same SQL rules the lists apply (scope-sql.ts), so the preview cannot disagree with the screens. */
export class AccessSummaryRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async summary(scope: ContentScope): Promise<AccessSummary> {
    const [libraries, series, books] = await Promise.all([
      this.db.selectFrom('libraries').select('id').execute(),
      this.db
        .selectFrom('series')
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>(eb.case().when(seriesVisible(scope, 'series')).then(1).else(0).end()).as('visible'),
        ])
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('books')
        .select((eb) => [
          eb.fn.countAll<number>().as('total'),
          eb.fn.sum<number>(eb.case().when(bookVisible(scope, 'books')).then(1).else(0).end()).as('visible'),
        ])
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      libraries_visible: libraries.filter((l) => inScope(scope, l.id)).length,
      libraries_total: libraries.length,
      series_visible: Number(series.visible ?? 0),
      series_total: Number(series.total),
      books_visible: Number(books.visible ?? 0),
      books_total: Number(books.total),
    };
  }
}
