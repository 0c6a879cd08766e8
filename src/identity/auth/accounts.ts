import type { Selectable } from 'kysely';
import type { ApiKeysTable, UsersTable } from '../../db/tables/identity.js';

/*
 * What resolving and logging in a caller needs of the stored accounts, API keys and runtime settings. The users,
 * api-keys and settings features provide them (their repositories and SettingsService fit these shapes) and the
 * composition root passes them in, so those features may depend on auth and auth on none of them.
 */

export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface UserAccounts {
  findById(id: string): Promise<UserRow | undefined>;
  /** By username or e-mail address, case-insensitively. */
  findByLogin(login: string): Promise<UserRow | undefined>;
  findByEmail(email: string): Promise<UserRow | undefined>;
  conflicts(username: string, email: string, exceptId?: string): Promise<{ username: boolean; email: boolean }>;
  insert(row: UserRow): Promise<void>;
  update(id: string, changes: Partial<Omit<UserRow, 'id'>>): Promise<void>;
}

export interface ApiKeyLookup {
  findByPrefix(prefix: string): Promise<ApiKeyRow | undefined>;
  findOwned(userId: string, id: string): Promise<ApiKeyRow | undefined>;
  touch(id: string, at: string): Promise<void>;
}

/** The runtime settings auth reads: `get` reads through, `peek` answers from memory on the request path. */
export interface AuthSettings {
  get(
    key: 'email_verification_required' | 'registration_enabled' | 'new_users_see_all_libraries' | 'password_sign_in_disabled',
  ): Promise<boolean>;
  peek(key: 'rate_limit_enabled'): boolean;
  peek(
    key: 'rate_limit_anonymous_rps' | 'rate_limit_anonymous_burst' | 'rate_limit_authenticated_rps' | 'rate_limit_authenticated_burst',
  ): number;
}

/** The account fields a login answer names. */
export const toUserSummary = (row: Pick<UserRow, 'id' | 'username' | 'email' | 'role'>) => ({
  id: row.id,
  username: row.username,
  email: row.email,
  role: row.role,
});
