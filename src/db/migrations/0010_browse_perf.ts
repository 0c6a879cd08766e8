import { sql, type Kysely } from 'kysely';
import type { DialectMigration } from '../migrate.js';

/** The JSON list columns mirrored into side tables, per catalog table. */
const LISTS = [
  { table: 'series', side: 'series_list_values', key: 'series_id', columns: ['genres', 'tags'] },
  { table: 'books', side: 'book_list_values', key: 'book_id', columns: ['genres', 'tags'] },
] as const;

/**
 * Browsing speed (issue 6, Performance):
 *
 * - `series_list_values` / `book_list_values`: one row per element of the `genres` and `tags` JSON lists,
 *   lower-cased by the engine's own `lower()` (exactly what the genre/tag filters compared per row before), so
 *   a genre or tag filter is an index lookup instead of a JSON function run on every row of the catalog.
 *   Kept in step by triggers, so writers (scanner, metadata edits) know nothing about them; rows go with their
 *   series or book (ON DELETE CASCADE). Only JSON arrays are mirrored; anything else counts as an empty list.
 * - `read_progress_user_book_state`: a covering index for "this user's progress" scans (On Deck, per-series
 *   read counts), so they never touch the table rows.
 */
export const browsePerf: DialectMigration = {
  async up(db: Kysely<unknown>, dialect) {
    for (const list of LISTS) {
      await db.schema
        .createTable(list.side)
        .addColumn(list.key, 'text', (c) => c.notNull().references(`${list.table}.id`).onDelete('cascade'))
        .addColumn('field', 'text', (c) => c.notNull())
        .addColumn('value_lower', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex(`${list.side}_lookup`).on(list.side).columns(['field', 'value_lower', list.key]).execute();
      await db.schema.createIndex(`${list.side}_owner`).on(list.side).column(list.key).execute();
    }
    await db.schema.createIndex('read_progress_user_book_state').on('read_progress').columns(['user_id', 'book_id', 'is_completed', 'updated_at']).execute();
    const statements = dialect === 'sqlite' ? sqliteStatements() : postgresStatements();
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};

function sqliteStatements(): string[] {
  const statements: string[] = [];
  for (const { table, side, key, columns } of LISTS) {
    const array = (row: string, column: string) => `CASE WHEN json_valid(${row}.${column}) AND json_type(${row}.${column}) = 'array' THEN ${row}.${column} ELSE '[]' END`;
    const insert = (row: string, column: string, from: string) =>
      `INSERT INTO ${side} (${key}, field, value_lower) SELECT ${row}.id, '${column}', lower(j.value) FROM ${from}json_each(${array(row, column)}) AS j WHERE j.value IS NOT NULL`;
    const fill = (row: string) => columns.map((column) => `${insert(row, column, '')};`);
    statements.push(...columns.map((column) => insert('t', column, `${table} AS t, `)));
    statements.push(`CREATE TRIGGER ${side}_insert AFTER INSERT ON ${table} BEGIN ${fill('new').join(' ')} END`);
    statements.push(
      `CREATE TRIGGER ${side}_update AFTER UPDATE OF ${columns.join(', ')} ON ${table} ` +
        `WHEN ${columns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')} ` +
        `BEGIN DELETE FROM ${side} WHERE ${key} = old.id; ${fill('new').join(' ')} END`,
    );
  }
  return statements;
}

function postgresStatements(): string[] {
  const statements = [
    `CREATE OR REPLACE FUNCTION bindery_json_array(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
       DECLARE j jsonb;
       BEGIN
         j := t::jsonb;
         IF jsonb_typeof(j) = 'array' THEN RETURN j; END IF;
         RETURN '[]'::jsonb;
       EXCEPTION WHEN others THEN RETURN '[]'::jsonb;
       END $$`,
  ];
  for (const { table, side, key, columns } of LISTS) {
    const fill = (row: string) =>
      columns.map(
        (column) =>
          `INSERT INTO ${side} (${key}, field, value_lower) SELECT ${row}.id, '${column}', lower(j.value) FROM jsonb_array_elements_text(bindery_json_array(${row}.${column})) AS j(value) WHERE j.value IS NOT NULL;`,
      );
    statements.push(...columns.map((column) => `INSERT INTO ${side} (${key}, field, value_lower) SELECT t.id, '${column}', lower(j.value) FROM ${table} t, jsonb_array_elements_text(bindery_json_array(t.${column})) AS j(value) WHERE j.value IS NOT NULL`));
    statements.push(`CREATE FUNCTION ${side}_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF TG_OP = 'UPDATE' THEN DELETE FROM ${side} WHERE ${key} = OLD.id; END IF;
         ${fill('NEW').join('\n         ')}
         RETURN NULL;
       END $$`);
    statements.push(`CREATE TRIGGER ${side}_insert AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${side}_sync()`);
    statements.push(
      `CREATE TRIGGER ${side}_update AFTER UPDATE OF ${columns.join(', ')} ON ${table} FOR EACH ROW ` +
        `WHEN (${columns.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ')}) EXECUTE FUNCTION ${side}_sync()`,
    );
  }
  return statements;
}
