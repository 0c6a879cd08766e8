import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { RepeatedInsert } from '../../src/db/repeated-insert.js';
import type { DB } from '../../src/db/schema.js';
import { createTestDatabase } from '../helpers/app.js';

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
});

afterAll(async () => {
  await drop();
});

const row = (i: number, updatedBy: string | null = null) => ({
  id: `h${i}`,
  key: `k${i}`,
  old_value: null,
  new_value: `"${i}"`,
  changed_by: updatedBy,
  changed_at: `2026-01-0${(i % 9) + 1}`,
});

async function stored(prefix: string) {
  return database.db.selectFrom('settings_history').selectAll().where('id', 'like', `${prefix}%`).orderBy('id').execute();
}

describe('RepeatedInsert', () => {
  it('writes the same rows as Kysely, the first time of a shape and the times it reuses the statement', async () => {
    const insert = new RepeatedInsert<DB, 'settings_history'>('settings_history');
    const batches = [[row(1), row(2, 'admin')], [row(3), row(4)], [row(5)], [row(6, "it's"), row(7)]];
    for (const batch of batches) await database.db.transaction().execute((trx) => insert.execute(trx, batch));
    expect(await stored('h')).toEqual(batches.flat().sort((a, b) => a.id.localeCompare(b.id)));
    // Batches 2 and 4 have the shape of batch 1 (two rows, the same columns): written by the cached statement.
    expect(insert.reused).toBe(2);
  });

  it('rows with other keys or an SQL expression go through Kysely as they are', async () => {
    const insert = new RepeatedInsert<DB, 'settings_history'>('settings_history');
    await insert.execute(database.db, [
      { ...row(1), id: 'x1' },
      { ...row(2), id: 'x2' },
    ]);
    // The second row lacks a column: the database default (NULL) applies to it alone.
    const { changed_by: _omitted, ...without } = { ...row(3), id: 'x4', changed_by: 'someone' };
    await insert.execute(database.db, [{ ...row(3), id: 'x3', changed_by: 'someone' }, without]);
    await insert.execute(database.db, [
      { ...row(5), id: 'x5', new_value: sql<string>`'computed'` },
      { ...row(6), id: 'x6' },
    ]);
    const rows = await stored('x');
    expect(rows.map((r) => [r.id, r.changed_by, r.new_value])).toEqual([
      ['x1', null, '"1"'],
      ['x2', null, '"2"'],
      ['x3', 'someone', '"3"'],
      ['x4', null, '"3"'],
      ['x5', null, 'computed'],
      ['x6', null, '"6"'],
    ]);
    expect(insert.reused).toBe(0);
  });
});
