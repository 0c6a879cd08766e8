import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { readArchive } from '../../src/operations/backups/archive.js';
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

describe('colophon backup killed with -9 mid-way', () => {
  it('leaves the last good backup whole; what it left half-written is swept by the next backup', async () => {
    const dir = makeTempDir();
    const data = path.join(dir, 'data');
    const tmp = makeTempDir();
    const good = path.join(dir, 'good.tar.gz');
    expect((await cli(['backup', '--output', good], data)).code).toBe(0);
    // A large chosen cover makes the backup last long enough to be killed while it writes.
    mkdirSync(path.join(data, 'covers', 'big'), { recursive: true });
    writeFileSync(path.join(data, 'covers', 'big', 'cover.webp'), randomBytes(64 * 1024 * 1024));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'backup', '--output', path.join(dir, 'killed.tar.gz')], {
      env: { ...process.env, COLOPHON_LOGGING__LEVEL: 'silent', COLOPHON_DATA_DIR: data, TMPDIR: tmp },
      stdio: 'ignore',
    });
    const partial = () => readdirSync(dir).find((n) => n.startsWith('.killed.tar.gz.partial-'));
    const deadline = Date.now() + 60_000;
    while (!partial() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(partial(), 'the backup never began writing its file').toBeDefined();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // What kill -9 leaves: the good backup, still whole, and no file under the killed one's name.
    expect(
      readdirSync(dir)
        .filter((n) => !n.startsWith('.'))
        .sort(),
    ).toEqual(['data', 'good.tar.gz']);
    await expect(readArchive(good, makeTempDir())).resolves.toMatchObject({ format: 'colophon-backup' });
    expect(readdirSync(tmp).some((n) => n.startsWith(`colophon-backup-${child.pid}-`))).toBe(true);
    // The next backup (quick, the cover gone) sweeps the dead one's partial file and working folder.
    rmSync(path.join(data, 'covers', 'big'), { recursive: true });
    const next = await run(process.execPath, ['--import', 'tsx', CLI, 'backup', '--output', path.join(dir, 'next.tar.gz')], {
      env: { ...process.env, COLOPHON_LOGGING__LEVEL: 'silent', COLOPHON_DATA_DIR: data, TMPDIR: tmp },
    });
    expect(next.stdout).toContain('next.tar.gz');
    expect(readdirSync(dir).sort()).toEqual(['data', 'good.tar.gz', 'next.tar.gz']);
    expect(readdirSync(tmp).filter((n) => n.startsWith('colophon-'))).toEqual([]);
  });
});
