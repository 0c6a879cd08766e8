import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * Helpers that do not depend on the database under test: a file importing only these stays "engine-free"
 * (test/engine-free.ts), so the PostgreSQL run leaves it out.
 */

export function makeTempDir(prefix = 'colophon-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Root reads every folder whatever its mode, so a test of an unreadable folder cannot run as root. */
export const asRoot = process.getuid?.() === 0;
export const notAsRoot = (title: string): string =>
  asRoot ? `${title} (skipped as root: root reads every folder whatever its permissions; run the tests as a normal user)` : title;
