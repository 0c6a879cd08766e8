#!/usr/bin/env node
// `npm start` runs this first (scripts/start.mjs, in the same process): it builds the server (tsc) and the web
// app (vite) only when their sources are newer than their build output, so an unchanged checkout starts at once
// instead of recompiling every time. Run alone (`npm run build:if-stale [server|web]`), it only builds.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => join(root, p);

function newest(paths, skip = () => false) {
  let latest = 0;
  const visit = (p) => {
    if (!existsSync(p) || skip(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else latest = Math.max(latest, stat.mtimeMs);
  };
  for (const p of paths) visit(at(p));
  return latest;
}

const builtAt = (p) => (existsSync(at(p)) ? statSync(at(p)).mtimeMs : -1);
const run = (what, command) => {
  console.log(`${what} changed since the last build: ${command}`);
  execSync(command, { cwd: root, stdio: 'inherit' });
};

/** Builds what is older than its sources: `only` is 'server', 'web' or undefined for both. */
export function buildIfStale(only) {
  if (
    only !== 'web' &&
    newest(['src', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle-server.mjs', 'package-lock.json']) > builtAt('dist/cli.js')
  ) {
    run('server sources', 'npm run build:server');
  }
  if (
    only !== 'server' &&
    newest(['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/size-budget.ts', 'package-lock.json'], (p) =>
      p.endsWith('schema.gen.ts'),
    ) > builtAt('web/dist/index.html')
  ) {
    run('web app sources', 'npm run build:web');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildIfStale(process.argv[2]);
