import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from '../../config/schema.js';
import type { Database } from '../../db/connection.js';
import { ApiKeysRepository } from '../api-keys/repository.js';
import { ApiKeysService } from '../api-keys/service.js';
import { UnchangedDatabaseCache } from '../../db/unchanged-cache.js';
import type { SettingsRepository } from '../settings/repository.js';
import type { SettingsService } from '../settings/service.js';
import { SetupService } from '../setup/service.js';
import { UsersRepository } from '../users/repository.js';
import { UsersService } from '../users/service.js';
import { EmailTokens } from './email-tokens.js';
import { resolveJwtSecret } from './jwt-secret.js';
import { LoginThrottle } from './login-throttle.js';
import { createMailer } from './mailer.js';
import { PasswordChangeService } from './password-change.js';
import { PasswordChecks } from './password-checks.js';
import { CallerResolver } from './resolve-caller.js';
import { RevocationsRepository } from './revocations.js';
import { AuthService } from './service.js';
import { TokenIssuer } from './tokens.js';

export interface Identity {
  resolver: CallerResolver;
  auth: AuthService;
  setup: SetupService;
  users: UsersService;
  apiKeys: ApiKeysService;
  passwordChange: PasswordChangeService;
}

/** Wires the identity services (users, tokens, keys, setup) over one database. */
export function createIdentity(
  database: Database,
  config: Config,
  log: FastifyBaseLogger,
  settings: { repo: SettingsRepository; service: SettingsService },
  mailTransport?: Transporter,
): Identity {
  const db = database.db;
  const usersRepo = new UsersRepository(db);
  const keysRepo = new ApiKeysRepository(db);
  const revocations = new RevocationsRepository(db);
  const tokens = new TokenIssuer(() => resolveJwtSecret(config), config.auth.jwt_expiry_seconds);
  const passwords = new PasswordChecks(usersRepo, new LoginThrottle(db));
  const auth = new AuthService(usersRepo, tokens, revocations, passwords, new EmailTokens(db), createMailer(config, log, mailTransport), settings.service);
  return {
    resolver: new CallerResolver(usersRepo, keysRepo, revocations, tokens, passwords, new UnchangedDatabaseCache(database)),
    auth,
    setup: new SetupService(usersRepo, settings.repo, auth),
    users: new UsersService(usersRepo, auth),
    apiKeys: new ApiKeysService(keysRepo),
    passwordChange: new PasswordChangeService(usersRepo, passwords),
  };
}
