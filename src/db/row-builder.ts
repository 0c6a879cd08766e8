export type RowBuilder = (row: readonly unknown[]) => Record<string, unknown>;

/**
 * `(row) => ({"id": row[0], "name": row[1], ...})` for a result's column names: an object literal of fixed
 * shape is one monomorphic allocation, where assigning keys in a loop goes through a megamorphic keyed store
 * once many queries share it. Names are quoted with JSON.stringify; a later duplicate name wins, as in
 * better-sqlite3's own row objects.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  if (names.includes('__proto__')) {
    // In a literal, `__proto__:` would set the prototype instead of a property.
    return (row) => Object.fromEntries(names.map((name, i) => [name, row[i]]));
  }
  const fields = names.map((name, i) => `${JSON.stringify(name)}: row[${i}]`).join(', ');
  return new Function('row', `return { ${fields} };`) as RowBuilder;
}
