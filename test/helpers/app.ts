import { randomBytes } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { App } from '../../src/http/types.js';
import { pgAdminSettings, testConfig, testDatabaseType, type DeepPartial } from './config.js';

export interface TestApp {
  app: App;
  config: Config;
  database: Database;
  close(): Promise<void>;
}

async function withAdminClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty, migrated database of the engine under test (a new PostgreSQL database per app). */
export async function createTestDatabase(
  overrides: DeepPartial<Config> = {},
): Promise<{ config: Config; database: Database; drop(): Promise<void> }> {
  if (testDatabaseType() === 'postgres') {
    const name = `colophon_t_${randomBytes(6).toString('hex')}`;
    await withAdminClient((c) => c.query(`CREATE DATABASE ${name}`));
    const config = testConfig(overrides, name);
    const database = openDatabase(config);
    await migrateToLatest(database);
    return {
      config,
      database,
      drop: () => withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
    };
  }
  const config = testConfig(overrides);
  const database = openDatabase(config);
  await migrateToLatest(database);
  return { config, database, drop: async () => undefined };
}

/** The real app over a real database; `close()` shuts the app and removes its database. */
export interface TestAppOptions {
  /** Routes only the test needs, added before the app is ready. */
  extraRoutes?: (app: App) => void;
  mailTransport?: Transporter;
  /** The built web app to serve at `/` (default: this checkout's web/dist, when built). */
  webAppDir?: string;
}

export async function createTestApp(overrides: DeepPartial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const { config, database, drop } = await createTestDatabase(overrides);
  const app = await buildApp({ config, database, logger: false, mailTransport: options.mailTransport, webAppDir: options.webAppDir });
  options.extraRoutes?.(app);
  await app.ready();
  return {
    app,
    config,
    database,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}
