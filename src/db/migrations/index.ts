import type { DialectMigration } from '../migrate.js';
import { settings } from './0001_settings.js';

/** Every migration, applied in key order. Append only: never edit one that has shipped. */
export const migrations: Record<string, DialectMigration> = {
  '0001_settings': settings,
};
