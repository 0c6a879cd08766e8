import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { OidcFlowsTable, OidcLinksTable } from '../../db/tables/oidc.js';

export type FlowRow = Selectable<OidcFlowsTable>;
export type LinkRow = Selectable<OidcLinksTable>;

/** Providers added in Administration, linked accounts and sign-ins in progress (tables/oidc.ts). */
export class OidcRepository {
  constructor(private readonly db: Kysely<DB>) {}

  storedProviders(): Promise<Array<{ id: string; settings: string }>> {
    return this.db.selectFrom('oidc_providers').select(['id', 'settings']).orderBy('id').execute();
  }

  async insertProvider(id: string, settings: string, now: string): Promise<void> {
    await this.db.insertInto('oidc_providers').values({ id, settings, created_at: now, updated_at: now }).execute();
  }

  async updateProvider(id: string, settings: string, now: string): Promise<void> {
    await this.db.updateTable('oidc_providers').set({ settings, updated_at: now }).where('id', '=', id).execute();
  }

  /** Removes the provider with its links and its sign-ins in progress. */
  async deleteProvider(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('oidc_flows').where('provider_id', '=', id).execute();
      await trx.deleteFrom('oidc_links').where('provider_id', '=', id).execute();
      await trx.deleteFrom('oidc_providers').where('id', '=', id).execute();
    });
  }

  findLink(providerId: string, subject: string): Promise<LinkRow | undefined> {
    return this.db
      .selectFrom('oidc_links')
      .selectAll()
      .where('provider_id', '=', providerId)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  linksOf(userId: string): Promise<LinkRow[]> {
    return this.db.selectFrom('oidc_links').selectAll().where('user_id', '=', userId).orderBy('provider_id').execute();
  }

  async insertLink(row: LinkRow): Promise<void> {
    await this.db.insertInto('oidc_links').values(row).execute();
  }

  async touchLink(providerId: string, subject: string, email: string | null, now: string): Promise<void> {
    await this.db
      .updateTable('oidc_links')
      .set({ email, last_login_at: now })
      .where('provider_id', '=', providerId)
      .where('subject', '=', subject)
      .execute();
  }

  async deleteLink(userId: string, providerId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('oidc_links')
      .where('user_id', '=', userId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async insertFlow(row: FlowRow): Promise<void> {
    await this.db.insertInto('oidc_flows').values(row).execute();
  }

  /** The flow of this state, removed so that it is used once (null when unknown, already used or expired). */
  async takeFlow(state: string, now: string): Promise<FlowRow | null> {
    const row = await this.db
      .selectFrom('oidc_flows')
      .selectAll()
      .where('state', '=', state)
      .where('handoff_hash', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    const removed = await this.db.deleteFrom('oidc_flows').where('state', '=', state).where('handoff_hash', 'is', null).executeTakeFirst();
    return Number(removed.numDeletedRows) === 1 && row.expires_at > now ? row : null;
  }

  /** Turns a finished flow into a one-time code the web app exchanges (the row keeps only what the exchange needs). */
  async insertHandoff(row: FlowRow): Promise<void> {
    await this.insertFlow(row);
  }

  async takeHandoff(handoffHash: string, now: string): Promise<FlowRow | null> {
    const row = await this.db.selectFrom('oidc_flows').selectAll().where('handoff_hash', '=', handoffHash).executeTakeFirst();
    if (!row) return null;
    const removed = await this.db.deleteFrom('oidc_flows').where('state', '=', row.state).executeTakeFirst();
    return Number(removed.numDeletedRows) === 1 && row.expires_at > now ? row : null;
  }

  async purgeExpired(now: string): Promise<void> {
    await this.db.deleteFrom('oidc_flows').where('expires_at', '<=', now).execute();
  }
}
