export interface SettingsTable {
  key: string;
  /** JSON text. */
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

export interface SettingsTables {
  settings: SettingsTable;
  settings_history: SettingsHistoryTable;
  user_preferences: UserPreferencesTable;
}

export interface UserPreferencesTable {
  user_id: string;
  key: string;
  /** JSON text. */
  value: string;
  updated_at: string;
}
