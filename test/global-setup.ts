import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One temp folder for the whole run, set as TMPDIR before the test workers start: every data_dir, library and
 * file the tests make (and the servers and workers they spawn, which inherit the variable) lands under it, and
 * it is removed when the run ends. Without it each run left a few hundred folders in /tmp (many tests make
 * their folders in helpers and never remove them). COLOPHON_KEEP_TEST_FILES=1 keeps it for a post-mortem.
 */
export default function setup(): () => void {
  // Each vitest project runs the global setup: the first one made the folder for all of them.
  if (process.env.COLOPHON_TEST_TMP_ROOT) return () => undefined;
  const root = mkdtempSync(path.join(os.tmpdir(), 'colophon-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  process.env.COLOPHON_TEST_TMP_ROOT = root;
  return () => {
    delete process.env.COLOPHON_TEST_TMP_ROOT;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.COLOPHON_KEEP_TEST_FILES === '1') {
      console.warn(`test files kept in ${root}`);
      return;
    }
    // A folder still in use (a lazily unmounted tmpfs, a server that has not quite exited) must not fail the run.
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      console.warn(`could not remove the test files in ${root}: ${(err as Error).message}`);
    }
  };
}
