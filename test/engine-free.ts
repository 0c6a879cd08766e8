/**
 * The test files that never reach a database: no module they import, directly or through others, is
 * test/helpers/config.ts (where a test learns its engine, COLOPHON_TEST_DATABASE). A PostgreSQL run leaves them
 * out — their SQLite run already covers them, and running them twice changes nothing but CI time. Found from the
 * imports themselves, so a new file is placed without anyone listing it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function resolveImport(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && c.endsWith('.ts'));
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f));
}

/** Test files (relative to `root`, slash-separated) whose imports never reach test/helpers/config.ts. */
export function engineFreeTestFiles(root: string): string[] {
  const target = path.join(root, 'test/helpers/config.ts');
  const reaches = new Map<string, boolean>();
  const visit = (file: string, stack: Set<string>): boolean => {
    if (file === target) return true;
    const known = reaches.get(file);
    if (known !== undefined) return known;
    // A cycle: this path adds nothing the file's other imports would not.
    if (stack.has(file)) return false;
    stack.add(file);
    let found = false;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const next = resolveImport(file, (m[1] ?? m[2])!);
      if (next && visit(next, stack)) {
        found = true;
        break;
      }
    }
    stack.delete(file);
    reaches.set(file, found);
    return found;
  };
  return [...testFiles(path.join(root, 'test')), ...testFiles(path.join(root, 'web/src'))]
    .filter((f) => !visit(f, new Set()))
    .map((f) => path.relative(root, f).split(path.sep).join('/'));
}
