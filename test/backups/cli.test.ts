import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';

// `colophon backup` / `restore` / `copy` as a script runs them, on SQLite in a temp data_dir (engine-free: test/engine-free.ts).
const run = promisify(execFile);
const CLI = path.resolve('src/cli.ts');
async function cli(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, COLOPHON_LOGGING__LEVEL: 'silent', COLOPHON_DATA_DIR: dataDir },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
vi.setConfig({ testTimeout: 180_000 });

describe('colophon backup, restore and copy', () => {
  it('exit 0 with a report, 3 for a file that is not a backup, 4 for a database that has accounts, 5 never on a good copy', async () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'b.tar.gz');
    const backup = await cli(['backup', '--output', file], path.join(dir, 'data'));
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/b\.tar\.gz: \d+ tables, 0 rows/);
    expect(existsSync(file)).toBe(true);

    const restored = await cli(['restore', file], path.join(dir, 'other'));
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^Restored 0 rows/);

    writeFileSync(path.join(dir, 'junk.tar.gz'), 'this is not a backup');
    const junk = await cli(['restore', path.join(dir, 'junk.tar.gz')], path.join(dir, 'third'));
    expect(junk.code).toBe(3);
    expect(junk.stderr).toContain('The backup file is refused');

    const copied = await cli(['copy', '--to', `sqlite:${path.join(dir, 'copy.db')}`], path.join(dir, 'data'));
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toContain("every table's rows and checksum match");

    const wrong = await cli(['copy', '--to', 'mysql://nowhere'], path.join(dir, 'data'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('--to must be');
  });
});
