import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../../src/config/schema.js';
import { pgAdminSettings, testDatabaseType } from './config.js';

/**
 * Writes through another connection to the test's database, not through the app (another process or instance):
 * `$1`-style parameters, turned into `?` on SQLite.
 */
export async function writeThroughAnotherConnection(config: Config, statements: Array<[string, unknown[]]>): Promise<void> {
  if (testDatabaseType() === 'sqlite') {
    const db = new SQLite(config.database.path!);
    try {
      for (const [text, values] of statements) db.prepare(text.replace(/\$\d+/g, '?')).run(...values);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ ...pgAdminSettings(), database: config.database.name });
  await client.connect();
  try {
    for (const [text, values] of statements) await client.query(text, values);
  } finally {
    await client.end();
  }
}
