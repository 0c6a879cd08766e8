import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';

export const PRIVATE_DIR_MODE = 0o700;

/**
 * Creates data_dir (relative paths resolve against the working directory) or stops startup naming the key.
 * A data_dir we create is private to the server's user (0700): it holds the database, the JWT secret and
 * cached images of every book. An existing folder keeps the mode its owner gave it.
 */
export function ensureDataDir(config: Config): string {
  const dir = path.resolve(config.data_dir);
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(`invalid configuration:\n  - config key "data_dir": cannot create or write ${dir} (${code})`);
  }
  return dir;
}

/** Derived images (thumbnails, resized pages), keyed by book content hash; shared by instances sharing data_dir. */
export function derivedCacheDir(config: Config): string {
  return path.join(path.resolve(config.data_dir), 'cache', 'derived');
}
