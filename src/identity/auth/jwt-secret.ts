import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/schema.js';

/**
 * The configured secret, or one generated on first start and kept in <data_dir>/jwt-secret (mode 0600) so
 * tokens survive restarts and instances sharing data_dir agree. Never logged.
 */
export function resolveJwtSecret(config: Config): string {
  if (config.auth.jwt_secret) return config.auth.jwt_secret;
  const file = path.join(path.resolve(config.data_dir), 'jwt-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start: generate below
  }
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // `wx` fails if another instance wrote it first; then that one wins.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
}
