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
