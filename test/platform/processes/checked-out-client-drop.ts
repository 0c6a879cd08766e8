/**
 * Run as its own process by database-outage.test.ts: holds a pooled connection checked out (as a transaction or
 * a request does) while an admin terminates its backend. The client emits 'error' with nobody waiting on a query;
 * unhandled, that ends the process. Prints `survived` and exits 0 when the pool shrugs it off and reconnects.
 * Usage: node --import tsx checked-out-client-drop.ts <database name>
 */
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../../src/db/connection.js';
import { pgAdminSettings, testConfig } from '../../helpers/config.js';

const name = process.argv[2];
if (!name) throw new Error('usage: checked-out-client-drop.ts <database name>');
const database = openDatabase(testConfig({}, name));

await database.db.connection().execute(async (connection) => {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
  const admin = new pg.Client({ ...pgAdminSettings(), database: 'postgres' });
  await admin.connect();
  await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
  await admin.end();
  // Still checked out: the server's FATAL message and the closed socket reach a client no query is waiting on.
  await new Promise((resolve) => setTimeout(resolve, 500));
});
const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
await database.close();
process.stdout.write(rows[0]?.one === 1 ? 'survived\n' : 'no answer after reconnecting\n');
