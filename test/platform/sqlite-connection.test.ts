import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/app.js';
import { testDatabaseType } from '../helpers/config.js';

/**
 * How the embedded database is opened. The statement journal of a multi-row insert into books (full-text trigger,
 * unique indexes) spilled to a temporary file past 64 KiB, page by page: most of a first scan's page writes on
 * the main thread. With temporary storage in memory it never touches the disk.
 */
describe.skipIf(testDatabaseType() !== 'sqlite')('SQLite connection', () => {
  let t: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t.database.close();
    await t.drop();
  });

  it('keeps statement journals and temporary tables in memory, with WAL and synchronous NORMAL', async () => {
    const pragma = async (name: string) => Object.values((await sql.raw(`PRAGMA ${name}`).execute(t.database.db)).rows[0] as object)[0];
    // 2 = MEMORY (0 = the compile-time default: a file).
    expect(await pragma('temp_store')).toBe(2);
    expect(await pragma('journal_mode')).toBe('wal');
    // 1 = NORMAL.
    expect(await pragma('synchronous')).toBe(1);
  });
});
