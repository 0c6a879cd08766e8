/**
 * Table types for Kysely. Conventions on both engines: ids are UUID text, timestamps ISO 8601 UTC text
 * (sortable as text), booleans integers 0/1, JSON documents text. One shape, so repositories never branch.
 */

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
  updated_by: string | null;
}

export interface SettingsHistoryTable {
  id: string;
  key: string;
  old_value: string | null;
  new_value: string | null;
  changed_by: string | null;
  changed_at: string;
}

export interface DB {
  settings: SettingsTable;
  settings_history: SettingsHistoryTable;
}
