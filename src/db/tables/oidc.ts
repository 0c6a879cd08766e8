/**
 * OpenID Connect sign-in (identity/oidc).
 *
 * `oidc_providers`: providers added in Administration (those of the config file are not stored); `settings` is the
 * provider's JSON, the client secret included (the database is as private as the config file).
 * `oidc_links`: one provider account (`provider_id`, the provider's stable `sub`) → one Colophon user; a user has
 * at most one link per provider. `email`: the address the provider gave last, shown on the account page.
 * `oidc_flows`: a sign-in in progress, keyed by its `state`, for at most ten minutes: the PKCE verifier and nonce,
 * the hash of the browser cookie that started it (the callback must come back to the same browser), and, once the
 * provider answered, the hash of the one-time code the web app exchanges for its session (`handoff_hash`, `user_id`).
 */
export interface OidcProvidersTable {
  id: string;
  settings: string;
  created_at: string;
  updated_at: string;
}

export interface OidcLinksTable {
  provider_id: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: string;
  last_login_at: string | null;
}

export interface OidcFlowsTable {
  state: string;
  provider_id: string;
  browser_hash: string;
  code_verifier: string;
  nonce: string;
  return_to: string;
  /** Set when a signed-in user links a provider from the account page. */
  link_user_id: string | null;
  handoff_hash: string | null;
  user_id: string | null;
  /** The provider's end-session URL for this sign-in (RP-initiated logout), when it offers one. */
  end_session_url: string | null;
  expires_at: string;
}

export interface OidcTables {
  oidc_providers: OidcProvidersTable;
  oidc_links: OidcLinksTable;
  oidc_flows: OidcFlowsTable;
}
