import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.js';
import type { MetadataProvidersTable, MetadataReviewsTable } from '../../db/tables/metadata.js';
import { seriesVisible, type ContentScope } from '../../identity/index.js';
import { chunks } from '../../util/chunks.js';

export type ProviderRow = Selectable<MetadataProvidersTable>;
export type ReviewRow = Selectable<MetadataReviewsTable>;

/** What identification reads of a series to search for it (only titles, years and ISBNs ever leave the server). */
export interface SeriesFacts {
  id: string;
  library_id: string;
  name: string;
  path: string;
  title: string | null;
  year: number | null;
  publisher: string | null;
  language: string | null;
  reading_direction: string | null;
  book_count: number;
  external_ids: string;
  /** The most trusted of them as `provider:id` (the spec's series duplicates). */
  external_id: string | null;
  age: number | null;
  /** The library's scanning_config (its `media_type`). */
  scanning_config: string;
}

/** SQL of identification: provider settings, the review queue, what a series is known by. */
export class IdentifyRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  providers(): Promise<ProviderRow[]> {
    return this.db.selectFrom('metadata_providers').selectAll().execute();
  }

  provider(name: string): Promise<ProviderRow | undefined> {
    return this.db.selectFrom('metadata_providers').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async saveProvider(row: ProviderRow): Promise<void> {
    const { name: _name, ...rest } = row;
    await this.db
      .insertInto('metadata_providers')
      .values(row)
      .onConflict((c) => c.column('name').doUpdateSet(rest))
      .execute();
  }

  async updateProvider(name: string, changes: Partial<Omit<ProviderRow, 'name'>>): Promise<void> {
    await this.db.updateTable('metadata_providers').set(changes).where('name', '=', name).execute();
  }

  /** Counts one request against the provider's quota window; the count after it. */
  async countRequest(name: string, window: string): Promise<number> {
    await this.db
      .updateTable('metadata_providers')
      .set((eb) => ({
        quota_used: eb
          .case()
          .when('quota_day', '=', window)
          .then(eb('quota_used', '+', 1))
          .else(1)
          .end(),
        quota_day: window,
      }))
      .where('name', '=', name)
      .execute();
    const row = await this.db.selectFrom('metadata_providers').select('quota_used').where('name', '=', name).executeTakeFirst();
    return Number(row?.quota_used ?? 0);
  }

  async deleteProvider(name: string): Promise<void> {
    await this.db.deleteFrom('metadata_providers').where('name', '=', name).execute();
  }

  /** A present series and what is known of it. */
  seriesFacts(id: string): Promise<SeriesFacts | undefined> {
    return this.db
      .selectFrom('series')
      .innerJoin('libraries', 'libraries.id', 'series.library_id')
      .select([
        'series.id',
        'series.library_id',
        'series.name',
        'series.path',
        'series.title',
        'series.year',
        'series.publisher',
        'series.language',
        'series.reading_direction',
        'series.book_count',
        'series.external_ids',
        'series.external_id',
        'series.age',
        'libraries.scanning_config',
      ])
      .where('series.id', '=', id)
      .where('series.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** The formats of a series' present books, its first ISBN and first author (for books). */
  async bookFacts(seriesId: string): Promise<{ formats: string[]; isbn: string | null; authors: string | null }> {
    const rows = await this.db
      .selectFrom('books')
      .select(['format', 'isbn', 'authors'])
      .where('series_id', '=', seriesId)
      .where('deleted_at', 'is', null)
      .orderBy('number_sort')
      .limit(200)
      .execute();
    return {
      formats: [...new Set(rows.flatMap((r) => (r.format ? [r.format] : [])))],
      isbn: rows.find((r) => r.isbn)?.isbn ?? null,
      authors: rows.find((r) => r.authors && r.authors !== '[]')?.authors ?? null,
    };
  }

  /** A series' present books with their numbers (an online database's issues are matched to them by number). */
  seriesBooks(seriesId: string): Promise<{ id: string; number: string | null }[]> {
    return this.db.selectFrom('books').select(['id', 'number']).where('series_id', '=', seriesId).where('deleted_at', 'is', null).execute();
  }

  /** Present series of a library, in name order; `matched`: only those with an external id (a refresh). */
  async librarySeries(libraryId: string, which: 'all' | 'unmatched' | 'matched'): Promise<string[]> {
    let q = this.db.selectFrom('series').select('id').where('library_id', '=', libraryId).where('deleted_at', 'is', null);
    if (which === 'unmatched') q = q.where('external_id', 'is', null);
    if (which === 'matched') q = q.where('external_id', 'is not', null);
    return (await q.orderBy('sort_name').execute()).map((r) => r.id);
  }

  /** Every library with its scanning_config (identification's schedule and after-scan option live there). */
  libraries(): Promise<{ id: string; scanning_config: string }[]> {
    return this.db.selectFrom('libraries').select(['id', 'scanning_config']).execute();
  }

  library(id: string): Promise<{ id: string; scanning_config: string } | undefined> {
    return this.db.selectFrom('libraries').select(['id', 'scanning_config']).where('id', '=', id).executeTakeFirst();
  }

  review(id: string): Promise<ReviewRow | undefined> {
    return this.db.selectFrom('metadata_reviews').selectAll().where('id', '=', id).executeTakeFirst();
  }

  reviewOfSeries(seriesId: string): Promise<ReviewRow | undefined> {
    return this.db.selectFrom('metadata_reviews').selectAll().where('series_id', '=', seriesId).executeTakeFirst();
  }

  async saveReview(row: ReviewRow): Promise<void> {
    // One review per series: identifying it again replaces the candidates and the status.
    const { status, query, candidates, best_score, created_at, decided_at, decided_by } = row;
    await this.db
      .insertInto('metadata_reviews')
      .values(row)
      .onConflict((c) => c.column('series_id').doUpdateSet({ status, query, candidates, best_score, created_at, decided_at, decided_by }))
      .execute();
  }

  async decideReview(id: string, status: 'accepted' | 'rejected', at: string, by: string | null): Promise<void> {
    await this.db.updateTable('metadata_reviews').set({ status, decided_at: at, decided_by: by }).where('id', '=', id).execute();
  }

  /** Reviews of these statuses among the series the scope sees, best score first; with the series' name. */
  async reviews(
    statuses: readonly string[],
    scope: ContentScope,
    page: { offset: number; limit: number },
    libraryId?: string,
  ): Promise<{ total: number; rows: (ReviewRow & { series_name: string; series_title: string | null })[] }> {
    let base = this.db
      .selectFrom('metadata_reviews')
      .innerJoin('series', 'series.id', 'metadata_reviews.series_id')
      .where('metadata_reviews.status', 'in', [...statuses])
      .where('series.deleted_at', 'is', null)
      .where(seriesVisible(scope, 'series'));
    if (libraryId) base = base.where('metadata_reviews.library_id', '=', libraryId);
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      base
        .selectAll('metadata_reviews')
        .select(['series.name as series_name', 'series.title as series_title'])
        .orderBy('metadata_reviews.best_score', 'desc')
        .orderBy('series.sort_name')
        .offset(page.offset)
        .limit(page.limit)
        .execute(),
    ]);
    return { total: Number(count?.n ?? 0), rows };
  }

  /** Review counts by status among the series the scope sees. */
  async reviewCounts(scope: ContentScope): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('metadata_reviews')
      .innerJoin('series', 'series.id', 'metadata_reviews.series_id')
      .select(['metadata_reviews.status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('series.deleted_at', 'is', null)
      .where(seriesVisible(scope, 'series'))
      .groupBy('metadata_reviews.status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** The series among these ids the scope sees. */
  async visibleSeries(ids: readonly string[], scope: ContentScope): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunks([...new Set(ids)], 500)) {
      const rows = await this.db.selectFrom('series').select('id').where('id', 'in', part).where(seriesVisible(scope, 'series')).execute();
      for (const r of rows) out.add(r.id);
    }
    return out;
  }
}
