import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/layout.mjs');

/** Runs the layout script on a checkout; its exit code and what it printed. */
async function layout(args: string[], root = ROOT): Promise<{ code: number; out: string }> {
  return run(process.execPath, [SCRIPT, ...args], { cwd: ROOT, env: { ...process.env, COLOPHON_LAYOUT_ROOT: root } }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
  );
}

describe('docs/layout.md, generated from the faces (scripts/layout.mjs)', () => {
  it('is up to date with the faces of this tree', async () => {
    const { code, out } = await layout(['--check']);
    expect(out).toContain('docs/layout.md is up to date');
    expect(code).toBe(0);
  });

  it('is stale when a face changes, and a folder the face does not describe is refused', async () => {
    const copy = makeTempDir('colophon-layout-');
    cpSync(path.join(ROOT, 'src'), path.join(copy, 'src'), { recursive: true });
    mkdirSync(path.join(copy, 'docs'));
    cpSync(path.join(ROOT, 'docs/layout.md'), path.join(copy, 'docs/layout.md'));
    cpSync(path.join(ROOT, '.prettierrc.json'), path.join(copy, '.prettierrc.json'), { force: true });
    expect((await layout(['--check'], copy)).code).toBe(0);

    const face = path.join(copy, 'src/lists/index.ts');
    writeFileSync(face, readFileSync(face, 'utf8').replace('read lists of books', 'reading lists of books'));
    const stale = await layout(['--check'], copy);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('docs/layout.md is stale');

    mkdirSync(path.join(copy, 'src/lists/shelves'));
    writeFileSync(path.join(copy, 'src/lists/shelves/service.ts'), 'export const shelves = 1;\n');
    const undescribed = await layout(['--check'], copy);
    expect(undescribed.code).toBe(1);
    expect(undescribed.out).toContain('src/lists/index.ts does not describe shelves/');
  });
});
