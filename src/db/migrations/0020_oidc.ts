import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * Sign-in with OpenID Connect (issue 39; tables/oidc.ts says what each column means): providers added in
 * Administration, accounts linked by the provider's `sub`, and sign-ins in progress.
 */
export const oidc: DialectMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oidc_providers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('settings', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('oidc_links')
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('email', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_login_at', 'text')
      .addPrimaryKeyConstraint('oidc_links_pk', ['provider_id', 'subject'])
      .execute();
    await db.schema.createIndex('oidc_links_user').on('oidc_links').columns(['user_id', 'provider_id']).unique().execute();
    await db.schema
      .createTable('oidc_flows')
      .addColumn('state', 'text', (c) => c.primaryKey())
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('browser_hash', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('return_to', 'text', (c) => c.notNull())
      .addColumn('link_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('handoff_hash', 'text')
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('end_session_url', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_flows_handoff').on('oidc_flows').columns(['handoff_hash']).execute();
  },
};
