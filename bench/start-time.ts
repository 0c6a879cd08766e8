/**
 * Start-up time (issue 22: `npm start` serves within 2 s when nothing changed since the last build), and where it
 * goes. `npx tsx bench/start-time.ts` (or `npm run bench -- --start`) prints:
 *  - `npm start` to the first `/health` 200 (median of 3; the server on a temp data folder through COLOPHON_CONFIG);
 *  - its parts: the prestart staleness check alone, `node dist/cli.js serve` alone, an empty `node` process;
 *  - inside the server process, the phases of `startServer` timed one by one (importing the code, opening the
 *    database, migrations, building the app, listening, background work);
 *  - a CPU profile of `node dist/cli.js serve` up to `/health`, its samples summed by package / dist folder;
 *  - each heavy package imported alone in a fresh process, and whether the server's start imports it.
 * `measureStart()` is the part `npm run bench` shows.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distCli, freePort, repoRoot, sleep, waitFor200, withoutColophonEnv } from './server-process.js';

export interface StartFigures {
  npmStartMs: number;
  npmStartRuns: number[];
  nodeServeMs: number;
  staleCheckMs: number;
  emptyNodeMs: number;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function configFile(): Promise<{ dir: string; file: string; base: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-start-'));
  const port = await freePort();
  const file = path.join(dir, 'colophon.yaml');
  writeFileSync(file, JSON.stringify({ server: { host: '127.0.0.1', port }, data_dir: path.join(dir, 'data') }));
  return { dir, file, base: `http://127.0.0.1:${port}` };
}

/** Spawns `command` in its own process group, times it to `/health` 200, then stops the whole group. */
async function timeToHealth(
  command: string,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
  nodeOptions: string[] = [],
  cwd = repoRoot,
): Promise<number> {
  const { dir, file, base } = await configFile();
  const started = performance.now();
  const child = spawn(command, [...nodeOptions, ...args], {
    cwd,
    detached: true,
    stdio: 'ignore',
    env: { ...withoutColophonEnv(), COLOPHON_CONFIG: file, ...extraEnv },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor200(`${base}/health`, child, 60_000, 5);
    return performance.now() - started;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
    await sleep(200); // npm's children finish closing
    rmSync(dir, { recursive: true, force: true });
  }
}

function timeProcess(command: string, args: readonly string[]): number {
  const started = performance.now();
  execFileSync(command, args, { cwd: repoRoot, stdio: 'ignore' });
  return performance.now() - started;
}

export async function measureStart(runs = 3): Promise<StartFigures> {
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts/build-if-stale.mjs')], { cwd: repoRoot, stdio: 'inherit' });
  const npmStartRuns: number[] = [];
  for (let i = 0; i < runs; i++) npmStartRuns.push(await timeToHealth('npm', ['start']));
  const nodeServe: number[] = [];
  for (let i = 0; i < runs; i++) nodeServe.push(await timeToHealth(process.execPath, [distCli, 'serve']));
  const stale: number[] = [];
  const empty: number[] = [];
  for (let i = 0; i < runs; i++) {
    stale.push(timeProcess(process.execPath, [path.join(repoRoot, 'scripts/build-if-stale.mjs')]));
    empty.push(timeProcess(process.execPath, ['-e', '']));
  }
  return {
    npmStartMs: median(npmStartRuns),
    npmStartRuns,
    nodeServeMs: median(nodeServe),
    staleCheckMs: median(stale),
    emptyNodeMs: median(empty),
  };
}

/** The phases of `startServer` (src/server.ts), done one by one in a child process with timestamps. */
function phases(): Record<string, number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-phases-'));
  const script = path.join(dir, 'phases.mjs');
  const dist = path.join(repoRoot, 'dist');
  writeFileSync(
    script,
    `const t0 = performance.now(); const marks = {}; let last = t0;
const mark = (name) => { const now = performance.now(); marks[name] = Math.round((now - last) * 10) / 10; last = now; };
const { loadConfig } = await import(${JSON.stringify(`${dist}/config/load.js`)}); mark('import config loader (yaml, zod)');
const { openDatabase } = await import(${JSON.stringify(`${dist}/db/connection.js`)}); mark('import db/connection (kysely, better-sqlite3, pg)');
const { migrateToLatest } = await import(${JSON.stringify(`${dist}/db/migrate.js`)}); mark('import db/migrate');
const { buildApp } = await import(${JSON.stringify(`${dist}/app.js`)}); mark('import app.js and everything it imports');
const { ensureDataDir } = await import(${JSON.stringify(`${dist}/data-dir.js`)});
const config = loadConfig({ env: { COLOPHON_DATA_DIR: ${JSON.stringify(path.join(dir, 'data'))}, COLOPHON_SERVER__HOST: '127.0.0.1', COLOPHON_SERVER__PORT: '0', COLOPHON_LOGGING__LEVEL: 'warn' } }); mark('load config');
ensureDataDir(config); const database = openDatabase(config); mark('data dir, open database');
await migrateToLatest(database); mark('migrations (fresh database)');
const app = await buildApp({ config, database }); mark('buildApp (plugins, routes, schemas)');
await app.listen({ host: '127.0.0.1', port: 0 }); mark('listen (app.ready: hooks, swagger, route compilation)');
await app.startEventBridge(); await app.background.start(); mark('event bridge, task worker, schedules');
marks['total since the script started'] = Math.round((performance.now() - t0) * 10) / 10;
process.stdout.write(JSON.stringify(marks)); await app.close(); process.exit(0);
`,
  );
  try {
    return JSON.parse(execFileSync(process.execPath, [script], { cwd: dir, env: withoutColophonEnv(), encoding: 'utf8' })) as Record<
      string,
      number
    >;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

/** Where `node dist/cli.js serve` spends its CPU up to `/health` 200: samples summed by package or dist folder. */
async function profile(): Promise<{ byGroup: Array<[string, number]>; packages: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-prof-'));
  await timeToHealth(process.execPath, [distCli, 'serve'], {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200']);
  await sleep(500);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no CPU profile was written');
  const profileText = readFileSync(path.join(dir, file), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const prof = JSON.parse(profileText) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
    endTime: number;
  };
  const group = (url: string, fn: string): string => {
    if (!url) return fn.startsWith('(') ? fn : '(native / V8 builtins)';
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (nm) return `npm: ${nm[1]}`;
    const d = /\/dist\/(.*)$/.exec(url);
    if (d) return `dist/${d[1]!.includes('/') ? d[1]!.split('/').slice(0, -1).join('/') + '/' : d[1]}`;
    if (url.startsWith('node:')) return 'node: internals';
    return url;
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  const packages = new Set<string>();
  for (const n of prof.nodes) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(n.callFrame.url);
    if (m) packages.add(m[1]!);
  }
  // Until the first /health answer, roughly: the profile's samples up to the end of start-up (idle after that).
  for (let i = 0; i < prof.samples.length; i++) {
    const node = byId.get(prof.samples[i]!)!;
    const key = group(node.callFrame.url, node.callFrame.functionName);
    if (key === '(idle)') continue;
    totals.set(key, (totals.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000);
  }
  return { byGroup: [...totals].sort((a, b) => b[1] - a[1]), packages: [...packages].sort() };
}

const HEAVY = [
  'pdfjs-dist/legacy/build/pdf.mjs',
  '@napi-rs/canvas',
  'sharp',
  'piscina',
  'better-sqlite3',
  'pg',
  'kysely',
  'fastify',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'zod',
  'fastify-type-provider-zod',
  'nodemailer',
  'node-unrar-js',
  'prom-client',
  'yaml',
  'pino',
  '@node-rs/argon2',
  'fast-xml-parser',
  'yauzl',
  'croner',
  'jose',
  'helmet',
];

function importAlone(specifier: string): number {
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`,
    ],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  return Number(out);
}

/**
 * A folder whose package.json starts the way it did before scripts/start.mjs (a `prestart` script, then
 * `node dist/cli.js serve`), the rest linked to this checkout: the old and the new `npm start` side by side.
 */
function prestartCheckout(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-bench-prestart-'));
  for (const name of ['dist', 'scripts', 'node_modules']) symlinkSync(path.join(repoRoot, name), path.join(dir, name));
  const scripts = { prestart: 'node scripts/build-if-stale.mjs', start: 'node dist/cli.js serve' };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'colophon-prestart', private: true, type: 'module', scripts }));
  return dir;
}

export async function main(): Promise<void> {
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const old = prestartCheckout();
  const pairs: Array<[number, number]> = [];
  try {
    for (let i = 0; i < 5; i++) pairs.push([await timeToHealth('npm', ['start'], {}, [], old), await timeToHealth('npm', ['start'])]);
  } finally {
    // Only the folder and its links go: the links' targets (dist, scripts, node_modules) are this checkout's.
    rmSync(old, { recursive: true, force: true });
  }
  console.log(
    `\`npm start\` to /health, 5 interleaved pairs: prestart script + node dist/cli.js serve (before) ${pairs.map((p) => p[0].toFixed(0)).join(', ')} ms, median ${median(pairs.map((p) => p[0])).toFixed(0)}; scripts/start.mjs, one process (now) ${pairs.map((p) => p[1].toFixed(0)).join(', ')} ms, median ${median(pairs.map((p) => p[1])).toFixed(0)}`,
  );
  const figures = await measureStart();
  console.log(
    `\n\`npm start\` to /health 200, nothing changed: ${figures.npmStartRuns.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} (median ${figures.npmStartMs.toFixed(0)} ms)`,
  );
  console.log(`  node dist/cli.js serve alone: ${figures.nodeServeMs.toFixed(0)} ms`);
  console.log(
    `  prestart (scripts/build-if-stale.mjs) alone, as a process: ${figures.staleCheckMs.toFixed(0)} ms; an empty node process: ${figures.emptyNodeMs.toFixed(0)} ms`,
  );
  console.log(
    `  so npm itself (its start-up, the script through sh) and the in-process staleness check: ~${(figures.npmStartMs - figures.nodeServeMs).toFixed(0)} ms`,
  );
  console.log('\nstartServer phases, in ms (a child process, fresh database):');
  for (const [name, ms] of Object.entries(phases())) console.log(`  ${String(ms).padStart(7)}  ${name}`);
  const prof = await profile();
  console.log('\nCPU profile of `node dist/cli.js serve` up to /health (ms of samples, idle left out), top 25:');
  for (const [name, ms] of prof.byGroup.slice(0, 25)) console.log(`  ${ms.toFixed(0).padStart(6)}  ${name}`);
  console.log(`\npackages whose code ran during start-up: ${prof.packages.join(', ')}`);
  console.log('\nimport of each heavy package alone, fresh process (ms), and whether start-up ran its code:');
  for (const spec of HEAVY) {
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
    console.log(`  ${importAlone(spec).toFixed(0).padStart(6)}  ${spec}${prof.packages.includes(name) ? '  (loaded at start)' : ''}`);
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) await main();
