export interface UsersTable {
  id: string;
  username: string;
  /** Lower-cased username and e-mail: uniqueness and login are case-insensitive. */
  username_key: string;
  email: string;
  email_key: string;
  password_hash: string;
  role: string;
  /** JSON array of extra permissions on top of the role. */
  permissions: string;
  email_verified: number;
  disabled: number;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  /** Every JWT and Komga session carries it; a new value ends them all (identity/auth/security-stamp.ts). */
  security_stamp: string;
  /** JSON: what the user may see (identity/access/content-access.ts); `{}` is everything. */
  content_access: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_prefix: string;
  /** SHA-256 (hex) of the secret part. */
  secret_hash: string;
  /** JSON array: the permissions requested for the key. */
  permissions: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface RevokedTokensTable {
  jti: string;
  expires_at: string;
}

export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface LoginFailuresTable {
  /** `account:<user id>`, or `user:<name as typed, lower-cased>` for a name that matches no account. */
  subject: string;
  failures: number;
  locked_until: string | null;
  updated_at: string;
}

export interface IdentityTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  revoked_tokens: RevokedTokensTable;
  email_tokens: EmailTokensTable;
  login_failures: LoginFailuresTable;
}
