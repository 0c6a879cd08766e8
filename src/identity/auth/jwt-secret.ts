import type { Config } from '../../config/schema.js';
import { secretInFolder } from '../../util/secret-box.js';

/**
 * The configured secret, or one generated on first start and kept in <data_dir>/jwt-secret (mode 0600) so
 * tokens survive restarts and instances sharing data_dir agree. Never logged.
 */
export function resolveJwtSecret(config: Config): string {
  return config.auth.jwt_secret || secretInFolder(undefined, config.data_dir, 'jwt-secret');
}
