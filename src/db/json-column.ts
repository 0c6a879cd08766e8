/**
 * JSON kept in a text column (permissions, positions, task payloads and results, settings, metadata records):
 * written with `toJsonColumn`, read back with one of the two parsers below, whichever the column calls for.
 */

/** The text a JSON column stores for `value`. */
export function toJsonColumn(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * A JSON column that may be absent or unreadable (written by an older version, another tool, or a failed run):
 * `fallback` when the text is null, undefined or not JSON. `validate`, when given, checks the parsed value and
 * returns it as a T (it may narrow or clean it), or undefined to use the fallback instead.
 */
export function parseJsonColumn<T>(text: string | null | undefined, fallback: T, validate?: (value: unknown) => T | undefined): T {
  if (text === null || text === undefined) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fallback;
  }
  if (!validate) return value as T;
  const checked = validate(value);
  return checked === undefined ? fallback : checked;
}

/**
 * A JSON column only the server writes, always with a value: unreadable text is a fault, thrown as JSON.parse
 * throws it (a SyntaxError), never replaced by a default.
 */
export function parseJsonColumnOrThrow<T>(text: string): T {
  return JSON.parse(text) as T;
}
