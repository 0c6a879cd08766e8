import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// The SQLite connection's change version (what every "kept while the database is unchanged" cache compares) is
// read at most once per turn of the event loop: a write of this connection must change it at once, a commit of
// another connection or process from the next turn on.

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('The change version of a SQLite connection', () => {
  let database: Database;
  let other: SQLite.Database;

  beforeAll(async () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'version.db');
    database = openDatabase(ConfigSchema.parse({ data_dir: dir, database: { type: 'sqlite', path: file } }));
    await sql`create table t (x integer)`.execute(database.db);
    other = new SQLite(file);
  });
  afterAll(async () => {
    other.close();
    await database.close();
  });

  it('changes at once with a write of this connection: a statement, a returning statement, a transaction', async () => {
    const before = database.changeVersion!();
    await sql`insert into t (x) values (1)`.execute(database.db);
    const afterInsert = database.changeVersion!();
    expect(afterInsert).not.toBe(before);
    await sql`update t set x = 2 returning x`.execute(database.db);
    const afterReturning = database.changeVersion!();
    expect(afterReturning).not.toBe(afterInsert);
    await database.db.transaction().execute(async (trx) => {
      await sql`delete from t`.execute(trx);
    });
    expect(database.changeVersion!()).not.toBe(afterReturning);
  });

  it('stays the same while nothing is written', async () => {
    const first = database.changeVersion!();
    await sql`select count(*) from t`.execute(database.db);
    await nextTurn();
    expect(database.changeVersion!()).toBe(first);
  });

  it("sees another connection's commit from the next turn of the event loop", async () => {
    const before = database.changeVersion!();
    other.prepare('insert into t (x) values (3)').run();
    await nextTurn();
    expect(database.changeVersion!()).not.toBe(before);
  });

  it('sees it at once when asked to read afresh, as a request does when it begins', async () => {
    const before = database.changeVersion!();
    other.prepare('insert into t (x) values (4)').run();
    database.readChangeVersionAfresh!();
    expect(database.changeVersion!()).not.toBe(before);
  });
});
