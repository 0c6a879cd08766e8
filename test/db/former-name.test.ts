import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { adoptFormerDatabaseFile } from '../../src/db/former-name.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/app.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// A developer's data from builds made before the rename (decision 042) keeps working: the old database file is
// taken over, and a database migrated under the old names is not migrated again.
const FORMER = 'bindery';

describe('Data made under the former product name', () => {
  const drops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const drop of drops.splice(0)) await drop();
  });

  it('renames <data_dir>/bindery.db and its WAL files to colophon.db, once, and says so', () => {
    const dir = makeTempDir();
    for (const suffix of ['', '-wal', '-shm']) writeFileSync(path.join(dir, `${FORMER}.db${suffix}`), suffix || 'db');
    const config = ConfigSchema.parse({ data_dir: dir });
    expect(adoptFormerDatabaseFile(config)).toMatch(/renamed the database file .*colophon\.db/);
    for (const suffix of ['', '-wal', '-shm']) {
      expect(existsSync(path.join(dir, `colophon.db${suffix}`))).toBe(true);
      expect(existsSync(path.join(dir, `${FORMER}.db${suffix}`))).toBe(false);
    }
    writeFileSync(path.join(dir, `${FORMER}.db`), 'another');
    expect(adoptFormerDatabaseFile(config)).toBeUndefined();
    expect(adoptFormerDatabaseFile(ConfigSchema.parse({ data_dir: makeTempDir() }))).toBeUndefined();
  });

  it('takes over the migration tables (and the search folding function) without applying a migration again', async () => {
    const { database, drop } = await createTestDatabase();
    drops.push(async () => {
      await database.close();
      await drop();
    });
    const { db } = database;
    await sql.raw(`ALTER TABLE colophon_migrations RENAME TO ${FORMER}_migrations`).execute(db);
    await sql.raw(`ALTER TABLE colophon_migrations_lock RENAME TO ${FORMER}_migrations_lock`).execute(db);
    if (database.dialect === 'postgres') {
      await sql
        .raw(
          `DO $$ DECLARE f record; BEGIN
             ALTER FUNCTION colophon_fold(text) RENAME TO ${FORMER}_fold;
             FOR f IN SELECT oid FROM pg_proc WHERE proname IN ('series_search_sync', 'books_search_sync') LOOP
               EXECUTE replace(pg_get_functiondef(f.oid), 'colophon_fold', '${FORMER}_fold');
             END LOOP;
           END $$`,
        )
        .execute(db);
    }
    expect(await migrateToLatest(database)).toEqual([]);
    if (database.dialect === 'postgres') {
      const fns = await sql<{ proname: string }>`select proname from pg_proc where proname like '%_fold'`.execute(db);
      expect(fns.rows.map((r) => r.proname)).toEqual(['colophon_fold']);
      const bodies = await sql<{
        def: string;
      }>`select pg_get_functiondef(oid) as def from pg_proc where proname = 'series_search_sync'`.execute(db);
      expect(bodies.rows[0]?.def).toContain('colophon_fold');
      const folded = await sql<{ t: string }>`select colophon_fold('Amélie') as t`.execute(db);
      expect(folded.rows[0]?.t).toBe('amelie');
    }
  });
});
