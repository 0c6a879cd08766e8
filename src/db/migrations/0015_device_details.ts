import type { Kysely } from 'kysely';
import type { DialectMigration } from '../dialect-migration.js';

/**
 * The user's devices (GET /me/devices): what a device told about itself, and the name the user gave it.
 *
 * `reading_devices.label`: the user's name for the device (PATCH /me/devices/{id}); null shows the detected name.
 * `client_device_id`, `client_name`: the reader app's own identity as it sent it (KOReader's device_id and device
 * name, an OPDS Progression device); kept from the last write that had them.
 * `user_agent`: the User-Agent of the last write; `last_protocol`: the protocol of the last write (ledger names).
 * Existing devices keep their rows with these empty until their next sync.
 *
 * `kosync_documents.api_key_id`: the key KOReader synced an unknown document with, so the position is attributed
 * to that device when a scan later finds the book (protocols/koreader attaches it then).
 */
export const deviceDetails: DialectMigration = {
  async up(db: Kysely<unknown>) {
    for (const column of ['label', 'client_device_id', 'client_name', 'user_agent', 'last_protocol']) {
      await db.schema.alterTable('reading_devices').addColumn(column, 'text').execute();
    }
    await db.schema.alterTable('kosync_documents').addColumn('api_key_id', 'text').execute();
  },
};
