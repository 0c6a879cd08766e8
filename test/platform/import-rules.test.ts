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

/** Feature folders (src/<area>/<feature>/) that import each other, as groups (strongly connected components of the folder graph). */
function featureFolderCycles(report: CruiseJson): string[][] {
  return cycles(report, (file) => /^src\/([^/]+\/[^/]+)\//.exec(file)?.[1]);
}

/** Top-level folders of src/ (areas and layers) that import each other, directly or around a loop. */
function topLevelCycles(report: CruiseJson): string[][] {
  return cycles(report, (file) => /^src\/([^/]+)\//.exec(file)?.[1]);
}

function cycles(report: CruiseJson, group: (file: string) => string | undefined): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const m of report.modules) {
    const from = group(m.source);
    for (const d of m.dependencies) {
      const to = group(d.resolved);
      if (from && to && from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (a: string, b: string, seen = new Set<string>()): boolean =>
    [...(edges.get(a) ?? [])].some((n) => n === b || (!seen.has(n) && (seen.add(n), reaches(n, b, seen))));
  const groups: string[][] = [];
  for (const f of edges.keys()) {
    if (groups.some((g) => g.includes(f))) continue;
    const found = [f, ...[...edges.keys()].filter((o) => o !== f && reaches(f, o) && reaches(o, f))];
    if (found.length > 1) groups.push(found.sort());
  }
  return groups;
}

describe('import boundaries (npm run lint)', () => {
  it('report every kind of forbidden import and fail, and let type-only uses of a repository pass', async () => {
    const dir = project({
      'reading/progress/repository.ts': 'export class ProgressRepository { row = 1; }\n',
      'reading/progress/routes.ts': 'export const registerProgressRoutes = 1;\n',
      // A folder-level cycle inside an area: pages/typed.ts uses progress/service.ts, which uses pages/views.ts.
      'reading/progress/service.ts': "import { pageView } from '../pages/views';\nexport const progressService = pageView;\n",
      'reading/pages/views.ts': 'export const pageView = 1;\n',
      'reading/pages/typed.ts':
        "import type { ProgressRepository } from '../progress/repository';\nimport { progressService } from '../progress/service';\nexport type R = ProgressRepository;\nexport const p = progressService;\n",
      'reading/stats/service.ts':
        "import { ProgressRepository } from '../progress/repository';\nexport const stats = new ProgressRepository();\n",
      'reading/stats/views.ts': "import { registerProgressRoutes } from '../progress/routes';\nexport const s = registerProgressRoutes;\n",
      'reading/index.ts':
        "export { progressService } from './progress/service';\nexport { registerProgressRoutes } from './progress/routes';\n",
      // Another area: through the face passes, past it does not (types included).
      'lists/collections/service.ts': "import { progressService } from '../../reading/index';\nexport const c = progressService;\n",
      'lists/collections/typed.ts': "import type { R } from '../../reading/pages/typed';\nexport type T = R;\n",
      'media/reader.ts': "import { progressService } from '../reading/index';\nexport const r = progressService;\n",
      'db/connection.ts': "import { progressService } from '../reading/index';\nexport const c = progressService;\n",
      'db/ids.ts': 'export const newId = () => 1;\n',
      'protocols/opds/feed.ts':
        "import { c } from '../../db/connection';\nimport { newId } from '../../db/ids';\nexport const f = () => [c, newId()];\n",
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
        'repositories-are-built-by-their-face: src/reading/stats/service.ts -> src/reading/progress/repository.ts',
        'routes-are-wired-by-their-face: src/reading/stats/views.ts -> src/reading/progress/routes.ts',
        'areas-meet-at-their-faces: src/lists/collections/typed.ts -> src/reading/pages/typed.ts',
        'media-is-pure: src/media/reader.ts -> src/reading/index.ts',
        'infrastructure-knows-no-area: src/db/connection.ts -> src/reading/index.ts',
        'presenters-call-services: src/protocols/opds/feed.ts -> src/db/connection.ts',
        'no-circular: src/tasks/a.ts -> src/tasks/b.ts',
        'migrations-import-no-live-code: src/db/migrations/0001_old.ts -> src/media/reader.ts',
        'feature-folders-do-not-import-each-other: src/reading/pages -> src/reading/progress',
        'feature-folders-do-not-import-each-other: src/reading/progress -> src/reading/pages',
      ].sort(),
    );
  }, 120_000);

  it('pass on this tree, where no two feature folders nor top-level folders import each other', async () => {
    const { code, report } = await cruise(ROOT);
    expect(report.summary.violations).toEqual([]);
    expect(code).toBe(0);
    // The same question answered from the file graph, independently of the folder-scope rule above.
    expect(featureFolderCycles(report)).toEqual([]);
    // Nothing runs back up between top-level folders: the areas and layers form one order.
    expect(topLevelCycles(report)).toEqual([]);
  }, 120_000);
});

describe('the web app imports nothing of the server (eslint)', () => {
  it('refuses a web file that imports from src/, and passes one that takes the generated OpenAPI types', async () => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: ROOT });
    const lint = async (text: string) =>
      (await eslint.lintText(text, { filePath: path.join(ROOT, 'web/src/api/probe.ts') }))[0]!.messages.map((m) => m.ruleId);
    expect(await lint("import type { EntityEvent } from '../../../src/events/types';\nexport type X = EntityEvent;\n")).toContain(
      'no-restricted-imports',
    );
    expect(await lint("import type { components } from './schema.gen';\nexport type X = components['schemas']['EntityEvent'];\n")).toEqual(
      [],
    );
  }, 60_000);
});
