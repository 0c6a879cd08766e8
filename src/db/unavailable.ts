/** How long a client should wait before retrying while the database is unreachable (the `Retry-After` value). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors: the server is down, restarting, or the network between us is. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs that mean "not now" rather than "wrong": 57P01 admin_shutdown (pg_terminate_backend,
 * `pg_ctl stop -m fast`), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, recovery),
 * 53300 too_many_connections. Class 08 (connection exception) is matched by prefix.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Messages of node-postgres and pg-pool, which throw plain Errors without a code when a connection ends or the
 * pool cannot hand one out in time; and PostgreSQL's refusal while a database does not accept connections
 * (55000, a class shared with unrelated errors, so matched by its text).
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /is not currently accepting connections$/,
  /^the database system is (starting up|shutting down|in recovery mode)$/,
];

/** Set on errors the PostgreSQL pool or driver threw for a query of ours (see markFromDatabase). */
const FROM_DATABASE = Symbol('colophon.fromDatabase');

/**
 * Tags an error as coming from the database layer. Socket codes (ECONNREFUSED, ETIMEDOUT...) mean "database
 * unreachable" only on such errors: an SMTP server or a library folder on a network mount fails the same way.
 */
export function markFromDatabase(err: unknown): unknown {
  if (err instanceof Error) Object.defineProperty(err, FROM_DATABASE, { value: true, enumerable: false });
  return err;
}

const fromDatabase = (err: Error): boolean => (err as unknown as Record<symbol, unknown>)[FROM_DATABASE] === true;

/**
 * True when `err` (an error tagged by markFromDatabase: only the PostgreSQL pool is; nothing on SQLite is a
 * network outage) says the database could not be reached or dropped the connection, as opposed to a query
 * that is wrong. Such a request may succeed later unchanged, so the API answers 503 with `Retry-After`
 * instead of 500. Looks through `cause` and AggregateError members (a host name with several addresses).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return err instanceof Error && fromDatabase(err) && isUnavailableError(err, 0);
}

function isUnavailableError(err: unknown, depth: number): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(err.message))) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isUnavailableError(e, depth + 1))) return true;
  return err.cause !== undefined && isUnavailableError(err.cause, depth + 1);
}
