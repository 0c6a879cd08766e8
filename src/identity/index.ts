/**
 * Identity: who the caller is, how they signed in, and what they may do and see.
 *
 * - access: the caller (`Caller`), the permission table, and what the caller may see: the content scope, the SQL
 *   every list applies, by-id lookups where absent and hidden are the same 404, server paths made relative.
 * - auth: establishing the caller (JWT, API key, Basic, devices), route hooks, tokens, passwords, lockout, security
 *   stamps, sign-in and sign-out, e-mail verification, password change.
 * - users: user accounts (administration); the last administrator is protected.
 * - api-keys: API keys: create within the creator's permissions, list, update, revoke.
 * - oidc: sign-in with OpenID Connect providers (configuration and Administration).
 * - proxy-auth: sign-in by a trusted reverse proxy's headers.
 * - setup: the first run: setup status and the first administrator.
 * - preferences: each user's preferences and their registry.
 *
 * The face: what other areas may use of this one.
 */
export { normalizeLabels } from './access/content-access.js';
export { bookVisible, seriesIdVisible, seriesVisible } from './access/scope-sql.js';
export { EVERYTHING, inScope, scopeFor, scopeOfUser } from './access/scope.js';
export type { ContentScope } from './access/scope.js';
export { relativeToLibrary, withLibraryRelativePaths } from './access/server-paths.js';
export { AccessService } from './access/service.js';
export type { InSeries } from './access/service.js';
export { AccessSummaryRepository } from './access/summary-repository.js';
export { ApiKeysRepository } from './api-keys/repository.js';
export { registerApiKeyRoutes } from './api-keys/routes.js';
export { ApiKeysService } from './api-keys/service.js';
export { redactApiKeys } from './auth/api-key-format.js';
export type { Caller } from './access/caller.js';
export { deviceHint, resolveDevice } from './auth/device.js';
export type { Device, DeviceHint, ProgressOrigin } from './auth/device.js';
export { EmailTokensRepository } from './auth/email-tokens-repository.js';
export { EmailTokens } from './auth/email-tokens.js';
export { callerOf, permissionTable, registerAuthHooks } from './auth/hooks.js';
export type { CallerAgain, RouteAccess } from './auth/hooks.js';
export { resolveJwtSecret } from './auth/jwt-secret.js';
export { LoginFailuresRepository } from './auth/login-failures-repository.js';
export { LoginThrottle } from './auth/login-throttle.js';
export { createMailer } from './auth/mailer.js';
export { PasswordChangeService, registerPasswordChangeRoutes } from './auth/password-change.js';
export { PasswordChecks } from './auth/password-checks.js';
export {
  ADMIN_ONLY,
  BROWSE_COLLECTIONS,
  BROWSE_READ_LISTS,
  ROLES,
  ROLE_PERMISSIONS,
  holdsRule,
  missingPermission,
  userPermissions,
} from './access/permissions.js';
export type { Permission, PermissionRule } from './access/permissions.js';
export { CallerResolver } from './auth/resolve-caller.js';
export type { Credentials } from './auth/resolve-caller.js';
export { RevocationsRepository } from './auth/revocations-repository.js';
export { registerAuthRoutes } from './auth/routes.js';
export { AuthService } from './auth/service.js';
export { TokenIssuer } from './auth/tokens.js';
export { registerOidcAdminRoutes } from './oidc/admin-routes.js';
export { ProviderRegistry } from './oidc/providers.js';
export { OidcRepository } from './oidc/repository.js';
export { registerOidcRoutes } from './oidc/routes.js';
export { OidcService } from './oidc/service.js';
export type { OidcAccounts } from './oidc/service.js';
export { PreferencesRepository } from './preferences/repository.js';
export { registerPreferenceRoutes } from './preferences/routes.js';
export { PreferencesService } from './preferences/service.js';
export { ProxyUserAccounts } from './proxy-auth/accounts.js';
export { proxyCredentials } from './proxy-auth/credentials.js';
export { registerProxySessionRoutes } from './proxy-auth/routes.js';
export { registerSetupRoutes } from './setup/routes.js';
export { SetupService } from './setup/service.js';
export { UsersRepository } from './users/repository.js';
export { resetPassword } from './users/reset-password.js';
export { registerUserRoutes } from './users/routes.js';
export { UsersService } from './users/service.js';

import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/connection.js';
import { UnchangedDatabaseCache } from '../db/unchanged-cache.js';
import type { ComposedArea } from '../http/area.js';
import { API_VERSION } from '../http/openapi.js';
import { AccessSummaryRepository } from './access/summary-repository.js';
import { ApiKeysRepository } from './api-keys/repository.js';
import { registerApiKeyRoutes } from './api-keys/routes.js';
import { ApiKeysService } from './api-keys/service.js';
import type { AuthSettings } from './auth/accounts.js';
import { EmailTokensRepository } from './auth/email-tokens-repository.js';
import { EmailTokens } from './auth/email-tokens.js';
import { callerAgainWith, type CallerAgain } from './auth/hooks.js';
import { resolveJwtSecret } from './auth/jwt-secret.js';
import { LoginFailuresRepository } from './auth/login-failures-repository.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { createMailer } from './auth/mailer.js';
import { PasswordChangeService, registerPasswordChangeRoutes } from './auth/password-change.js';
import { PasswordChecks } from './auth/password-checks.js';
import { CallerResolver, type Credentials as CallerCredentials } from './auth/resolve-caller.js';
import { RevocationsRepository } from './auth/revocations-repository.js';
import { registerAuthRoutes } from './auth/routes.js';
import { AuthService } from './auth/service.js';
import { TokenIssuer } from './auth/tokens.js';
import { registerOidcAdminRoutes } from './oidc/admin-routes.js';
import { ProviderRegistry } from './oidc/providers.js';
import { OidcRepository } from './oidc/repository.js';
import { registerOidcRoutes } from './oidc/routes.js';
import { OidcService, type OidcAccounts } from './oidc/service.js';
import { PreferencesRepository } from './preferences/repository.js';
import { registerPreferenceRoutes } from './preferences/routes.js';
import { PreferencesService } from './preferences/service.js';
import { ProxyUserAccounts } from './proxy-auth/accounts.js';
import { proxyCredentials } from './proxy-auth/credentials.js';
import { registerProxySessionRoutes } from './proxy-auth/routes.js';
import { registerSetupRoutes } from './setup/routes.js';
import { SetupService, type SetupMarkers } from './setup/service.js';
import { UsersRepository } from './users/repository.js';
import { registerUserRoutes } from './users/routes.js';
import { UsersService } from './users/service.js';

export interface IdentityDeps {
  config: Config;
  database: Database;
  log: FastifyBaseLogger;
  /** Replaces SMTP (tests capture mail with nodemailer's JSON transport). */
  mailTransport?: Transporter;
  /** The runtime settings sign-in reads (operations/settings). */
  settings: AuthSettings;
  /** The settings table's one-time markers (the first administrator is made once). */
  markers: SetupMarkers;
  /** The libraries that exist, for access rules and for new accounts (the libraries area). */
  libraries: { list(): Promise<Array<{ id: string; name: string }>>; existing(ids: readonly string[]): Promise<string[]> };
}

/** Who the caller is and what they may manage about themselves and others. */
export interface IdentityServices {
  resolver: CallerResolver;
  /** A stream's caller as the database says now (event streams outlive their request). */
  callerAgain: CallerAgain;
  /** Credentials from a trusted proxy's headers, when `auth.proxy` is on. */
  proxyCredentials: ((request: FastifyRequest) => CallerCredentials | undefined) | undefined;
  auth: AuthService;
  setup: SetupService;
  users: UsersService;
  apiKeys: ApiKeysService;
  passwordChange: PasswordChangeService;
  /** Sign-in with OpenID Connect providers (config file and Administration). */
  oidc: OidcService;
  oidcProviders: ProviderRegistry;
  preferences: PreferencesService;
}

export function compose(deps: IdentityDeps): ComposedArea<IdentityServices> {
  const { database, config, settings } = deps;
  const db = database.db;
  const usersRepo = new UsersRepository(db);
  const keysRepo = new ApiKeysRepository(db);
  const summaries = new AccessSummaryRepository(db);
  const revocations = new RevocationsRepository(db);
  const preferencesRepo = new PreferencesRepository(db);
  const tokens = new TokenIssuer(() => resolveJwtSecret(config), config.auth.jwt_expiry_seconds);
  const passwords = new PasswordChecks(usersRepo, new LoginThrottle(new LoginFailuresRepository(db)));
  const auth = new AuthService(
    usersRepo,
    tokens,
    revocations,
    passwords,
    new EmailTokens(new EmailTokensRepository(db)),
    createMailer(config, deps.log, deps.mailTransport),
    settings,
    async (userId) => {
      const chosen = (await preferencesRepo.all(userId)).get('language')?.value;
      return typeof chosen === 'string' ? chosen : undefined;
    },
  );
  const oidcRepo = new OidcRepository(db);
  const oidcProviders = new ProviderRegistry(config.auth.oidc.providers, oidcRepo);
  // What OIDC's and the proxy's hand-off need of the accounts.
  const accounts: OidcAccounts = {
    findById: (id) => usersRepo.findById(id),
    findByEmail: (email) => usersRepo.findByEmail(email),
    conflicts: (username, email) => usersRepo.conflicts(username, email),
    update: (id, changes) => usersRepo.update(id, changes),
    countAdmins: (exceptId) => usersRepo.countAdmins(exceptId),
    createAccount: auth.createAccount.bind(auth),
    issueFor: auth.issueFor.bind(auth),
    libraries: () => deps.libraries.list(),
  };
  const oidc = new OidcService(oidcProviders, oidcRepo, accounts);
  const resolver = new CallerResolver(
    usersRepo,
    keysRepo,
    revocations,
    tokens,
    passwords,
    new UnchangedDatabaseCache(database),
    config.auth.proxy.enabled
      ? new ProxyUserAccounts(config.auth.proxy, {
          findByUsername: (u) => usersRepo.findByUsername(u),
          createAccount: accounts.createAccount,
        })
      : undefined,
  );
  const setup = new SetupService(usersRepo, deps.markers, auth);
  const users = new UsersService(
    usersRepo,
    auth,
    async (ids) => new Set(await deps.libraries.existing(ids)),
    (scope) => summaries.summary(scope),
  );
  const apiKeys = new ApiKeysService(keysRepo);
  const passwordChange = new PasswordChangeService(usersRepo, passwords);
  const preferences = new PreferencesService(preferencesRepo);
  const publicUrl = config.server.public_url;
  return {
    services: {
      resolver,
      callerAgain: callerAgainWith(resolver),
      proxyCredentials: proxyCredentials(config.auth.proxy),
      auth,
      setup,
      users,
      apiKeys,
      passwordChange,
      oidc,
      oidcProviders,
      preferences,
    },
    wiring: {
      api: [
        (v1) =>
          registerSetupRoutes(v1, setup, {
            version: API_VERSION,
            registrationEnabled: () => settings.get('registration_enabled'),
            koreaderSyncPath: config.koreader.enabled ? config.koreader.prefix : null,
          }),
        (v1) => registerAuthRoutes(v1, auth, publicUrl),
        (v1) => registerPasswordChangeRoutes(v1, passwordChange),
        (v1) => registerProxySessionRoutes(v1, accounts),
        // Its own scope: the form_post parser it adds must not reach other routes.
        (v1) =>
          v1.register(async (scope) => {
            registerOidcRoutes(scope, oidc, { publicUrl, passwordSignIn: async () => !(await settings.get('password_sign_in_disabled')) });
            registerOidcAdminRoutes(scope, oidcProviders, publicUrl);
          }),
        (v1) => registerUserRoutes(v1, users),
        (v1) => registerApiKeyRoutes(v1, apiKeys),
        (v1) => registerPreferenceRoutes(v1, preferences),
      ],
    },
  };
}
