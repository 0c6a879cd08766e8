/**
 * Whether an error means "no space left" on the disk holding the database or data_dir: SQLite's SQLITE_FULL,
 * PostgreSQL's 53100 (disk_full), or the system's ENOSPC / EDQUOT (quota). Causes are followed, since a
 * driver or a wrapper may carry the original error there.
 */
export function isDiskFullError(err: unknown): boolean {
  for (let current: unknown = err, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

const DISK_FULL_CODES = new Set(['SQLITE_FULL', '53100', 'ENOSPC', 'EDQUOT']);

/**
 * Bookkeeping that must not fail the request it rides on (last login time, failed-login counts): on a full
 * disk it is skipped, and the request goes on. Any other error still fails it.
 */
export async function unlessDiskFull(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (!isDiskFullError(err)) throw err;
  }
}
