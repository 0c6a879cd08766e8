import path from 'node:path';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { makeTempDir } from './temp-dir.js';

export { asRoot, makeTempDir, notAsRoot } from './temp-dir.js';

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] };

export const testDatabaseType = (): 'sqlite' | 'postgres' => (process.env.COLOPHON_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite');

/** The name of a test only PostgreSQL can run: on a default (SQLite) run, it says why it is skipped and what runs it. */
export const postgresOnly = (title: string): string =>
  testDatabaseType() === 'postgres'
    ? title
    : `${title} (skipped on SQLite: needs a PostgreSQL server — apt-get install postgresql, then COLOPHON_TEST_DATABASE=postgres npm test; docs/testing.md)`;

export function pgAdminSettings() {
  return {
    host: process.env.COLOPHON_TEST_PG_HOST ?? '127.0.0.1',
    port: Number(process.env.COLOPHON_TEST_PG_PORT ?? 5432),
    user: process.env.COLOPHON_TEST_PG_USER ?? 'colophon',
    password: process.env.COLOPHON_TEST_PG_PASSWORD ?? 'colophon',
  };
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const cur = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)
        ? merge(cur as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** A complete Config for tests: quiet logs, a fixed JWT secret, a temp data_dir, and the database under test. */
export function testConfig(overrides: DeepPartial<Config> = {}, databaseName?: string): Config {
  const dataDir = makeTempDir();
  const database =
    testDatabaseType() === 'postgres'
      ? { type: 'postgres', ...pgAdminSettings(), name: databaseName ?? 'postgres', pool_size: 5 }
      : { type: 'sqlite', path: path.join(dataDir, 'colophon.db') };
  const base = {
    data_dir: dataDir,
    database,
    logging: { level: 'silent' },
    auth: { jwt_secret: 'test-secret-test-secret-test-secret-0123456789' },
    // Background cover generation after scans would race with tests that count tasks; its own test turns it on.
    thumbnails: { pregenerate: false },
    // Folder watching would queue scans in tests that count tasks; the watching tests turn it on.
    scanner: { watch: false },
    // Generous limits so feature tests never trip them; rate-limit tests set their own.
    rate_limit: { anonymous: { requests_per_second: 1000, burst: 10_000 }, authenticated: { requests_per_second: 1000, burst: 10_000 } },
  };
  return ConfigSchema.parse(merge(base, overrides as Record<string, unknown>));
}
