import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/** A Kobo device's last delivery that fell back (tables/kobo.ts: `delivery_problem`). */
export const koboDeliveryProblem: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('kobo_devices').addColumn('delivery_problem', 'text').execute();
  },
};
