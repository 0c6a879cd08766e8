import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * `users.security_stamp` (issue 17): a random value every JWT and Komga session carries; changing it (password
 * change, disable or re-enable, role or permission change, "sign out everywhere") ends them all at once.
 * Existing users start with the empty stamp, which is what tokens issued before this column carry (none), so an
 * upgrade logs nobody out; their first change gives them a random one.
 */
export const securityStamp: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('users')
      .addColumn('security_stamp', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
