import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}
interface CruiseJson {
  summary: { violations: Violation[]; error: number };
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

/** Runs the command `npm run lint` runs (its exit code is what fails CI), in `cwd`, and its JSON report. */
async function cruise(cwd: string): Promise<{ code: number; report: CruiseJson }> {
  const options = { cwd, maxBuffer: 64 * 1024 * 1024 };
  const code = await run(DEPCRUISE, ['src', '--config', CONFIG], options).then(
    () => 0,
    (err: { code: number }) => err.code,
  );
  const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], options);
  return { code, report: JSON.parse(stdout) as CruiseJson };
}

/** A throwaway project laid out like ours, with the given files under src/. */
function project(files: Record<string, string>): string {
  const dir = makeTempDir('colophon-imports-');
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', strict: true }, include: ['src'] }),
  );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, 'src', file)), { recursive: true });
    writeFileSync(path.join(dir, 'src', file), text);
  }
  return dir;
}

/** Feature folders that import each other, as groups (strongly connected components of the folder graph). */
function featureFolderCycles(report: CruiseJson): string[][] {
  const feature = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];
  const edges = new Map<string, Set<string>>();
  for (const m of report.modules) {
    const from = feature(m.source);
    for (const d of m.dependencies) {
      const to = feature(d.resolved);
      if (from && to && from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (a: string, b: string, seen = new Set<string>()): boolean =>
    [...(edges.get(a) ?? [])].some((n) => n === b || (!seen.has(n) && (seen.add(n), reaches(n, b, seen))));
  const groups: string[][] = [];
  for (const f of edges.keys()) {
    if (groups.some((g) => g.includes(f))) continue;
    const group = [f, ...[...edges.keys()].filter((o) => o !== f && reaches(f, o) && reaches(o, f))];
    if (group.length > 1) groups.push(group.sort());
  }
  return groups;
}

describe('import boundaries (npm run lint)', () => {
  it('report every kind of forbidden import and fail, and let type-only uses of a repository pass', async () => {
    const dir = project({
      'modules/progress/repository.ts': 'export class ProgressRepository { row = 1; }\n',
      'modules/progress/routes.ts': 'export const registerProgressRoutes = 1;\n',
      // A folder-level cycle through public surfaces only: books/typed.ts uses progress/service.ts, which uses books/views.ts.
      'modules/progress/service.ts': "import { bookView } from '../books/views';\nexport const progressService = bookView;\n",
      'modules/books/views.ts': 'export const bookView = 1;\n',
      'modules/books/service.ts':
        "import { ProgressRepository } from '../progress/repository';\nexport const books = new ProgressRepository();\n",
      'modules/books/typed.ts':
        "import type { ProgressRepository } from '../progress/repository';\nimport { progressService } from '../progress/service';\nexport type R = ProgressRepository;\nexport const p = progressService;\n",
      'modules/series/routes.ts':
        "import { registerProgressRoutes } from '../progress/routes';\nexport const s = registerProgressRoutes;\n",
      'media/reader.ts': "import { progressService } from '../modules/progress/service';\nexport const r = progressService;\n",
      'db/connection.ts': "import { progressService } from '../modules/progress/service';\nexport const c = progressService;\n",
      'feeds/opds/feed.ts':
        "import type { ProgressRepository } from '../../modules/progress/repository';\nexport type F = ProgressRepository;\n",
      'db/migrations/0001_old.ts': "import { r } from '../../media/reader';\nexport const m = r;\n",
      'db/migrations/0002_typed.ts': "import type { r } from '../../media/reader';\nexport type M = typeof r;\n",
      'tasks/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'tasks/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    const { code, report } = await cruise(dir);
    expect(code).not.toBe(0);
    const found = report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(found).toEqual(
      [
        'features-do-not-query-each-other: src/modules/books/service.ts -> src/modules/progress/repository.ts',
        'features-use-public-surface: src/modules/series/routes.ts -> src/modules/progress/routes.ts',
        'media-is-pure: src/media/reader.ts -> src/modules/progress/service.ts',
        'infrastructure-knows-no-feature: src/db/connection.ts -> src/modules/progress/service.ts',
        'presenters-call-services: src/feeds/opds/feed.ts -> src/modules/progress/repository.ts',
        'no-circular: src/tasks/a.ts -> src/tasks/b.ts',
        'migrations-import-no-live-code: src/db/migrations/0001_old.ts -> src/media/reader.ts',
        'feature-folders-do-not-import-each-other: src/modules/books -> src/modules/progress',
        'feature-folders-do-not-import-each-other: src/modules/progress -> src/modules/books',
      ].sort(),
    );
  }, 120_000);

  it('pass on this tree, where no two feature folders import each other', async () => {
    const { code, report } = await cruise(ROOT);
    expect(report.summary.violations).toEqual([]);
    expect(code).toBe(0);
    // The same question answered from the file graph, independently of the folder-scope rule above.
    expect(featureFolderCycles(report)).toEqual([]);
  }, 120_000);
});
