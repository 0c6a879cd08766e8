import { sql, type Kysely } from 'kysely';
import { ageOf } from '../../media/metadata/age-ratings.js';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Who sees what in a household (modules/access).
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
