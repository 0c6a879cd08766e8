import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Who sees what in a household (identity/access).
 *
 * `users.content_access`: JSON of the user's restrictions — `library_ids` (null: every library), `max_age` (null:
 * no age limit), `include_unrated`, `labels_allow`, `labels_exclude`. `{}` is no restriction, which every existing
 * user keeps. On the user row because the row is read (or remembered) for every request anyway: a change is
 * seen on the user's very next request, on every instance, without anything else to invalidate.
 *
 * `series.age`: the age the series' effective rating stands for (media/metadata/age-ratings.ts), null when unrated: an
 * age limit is one comparison in SQL. Filled here from the stored ratings; scans keep it.
 *
 * `series_sharing_labels`: a series' sharing labels (lower-cased), a row each, so that "carries one of these
 * labels" is an indexed EXISTS on both engines.
 */
export const householdAccess: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('content_access', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.alterTable('series').addColumn('age', 'integer').execute();
    const rated = await sql<{ id: string; age_rating: string }>`select id, age_rating from series where age_rating is not null`.execute(db);
    for (const row of rated.rows) {
      const age = ageOf(row.age_rating);
      if (age !== undefined) await sql`update series set age = ${age} where id = ${row.id}`.execute(db);
    }
    await db.schema
      .createTable('series_sharing_labels')
      .addColumn('series_id', 'text', (c) => c.notNull().references('series.id').onDelete('cascade'))
      .addColumn('label', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('series_sharing_labels_pk', ['series_id', 'label'])
      .execute();
    await db.schema.createIndex('series_sharing_labels_label').on('series_sharing_labels').columns(['label', 'series_id']).execute();
  },
};

/*
 * The age table as it stood when this migration was written (media/metadata/age-ratings.ts, 2026-11): a migration
 * never imports live code, so that editing today's table cannot change what an old migration did.
 */
const AGE_BY_RATING: Readonly<Record<string, number>> = {
  'adults only 18+': 18,
  'early childhood': 3,
  everyone: 0,
  'everyone 10+': 10,
  g: 0,
  'kids to adults': 6,
  m: 17,
  'ma15+': 15,
  'mature 17+': 17,
  pg: 8,
  'r18+': 18,
  teen: 13,
  'x18+': 18,
};
const UNRATED = new Set(['rating pending', 'unknown', '']);

function ageOf(rating: string | null | undefined): number | undefined {
  if (rating === null || rating === undefined) return undefined;
  const key = rating.trim().toLowerCase();
  if (UNRATED.has(key)) return undefined;
  const known = AGE_BY_RATING[key];
  if (known !== undefined) return known;
  const digits = /\d{1,2}/.exec(key);
  return digits ? Number(digits[0]) : undefined;
}
