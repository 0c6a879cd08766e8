import { CompiledQuery, type Kysely } from 'kysely';

/**
 * Multi-row INSERTs of the same shape, compiled by Kysely once and then reused with new parameters. A scan writes
 * thousands of book rows 20 at a time; building and compiling each statement (600-odd value nodes walked by
 * Kysely's parser and compiler) was a third of the scanner's JavaScript on the main thread, the thread that also
 * feeds the media workers.
 *
 * The SQL of `INSERT INTO t (c1..cn) VALUES (...), ...` depends only on the table, the columns and the row count,
 * and its parameters are the values row by row in column order. That is checked, not assumed: the first time a
 * shape is seen, Kysely's own compilation must have exactly those parameters, or the shape is never cached. Rows
 * that differ in their keys, or hold anything but plain values (an SQL expression, an object), go through Kysely
 * every time.
 */
export class RepeatedInsert<DB, T extends keyof DB & string> {
  private readonly sqlByShape = new Map<string, string | null>();
  /** How many statements ran from the cache (for tests: the fast path must not silently go unused). */
  reused = 0;

  constructor(private readonly table: T) {}

  async execute(db: Kysely<DB>, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const parameters = flatten(rows, columns);
    const shape = parameters && `${rows.length}:${columns.join(',')}`;
    const cached = shape ? this.sqlByShape.get(shape) : null;
    if (cached && parameters) {
      await db.executeQuery(CompiledQuery.raw(cached, parameters));
      this.reused++;
      return;
    }
    // Kysely's typing of `values` cannot follow a generic table; the rows are the table's insertable rows.
    const query = db.insertInto(this.table).values(rows as never);
    if (shape && cached === undefined) {
      const compiled = query.compile();
      const same =
        parameters!.length === compiled.parameters.length && parameters!.every((value, i) => Object.is(value, compiled.parameters[i]));
      this.sqlByShape.set(shape, same ? compiled.sql : null);
    }
    await query.execute();
  }
}

/** The rows' values in column order, or null when a row has other keys or a value that is not a plain one. */
function flatten(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[]): unknown[] | null {
  const out: unknown[] = [];
  for (const row of rows) {
    if (Object.keys(row).length !== columns.length) return null;
    for (const column of columns) {
      const value = row[column];
      if (value === undefined || (typeof value === 'object' && value !== null) || typeof value === 'function') return null;
      out.push(value);
    }
  }
  return out;
}
