#!/usr/bin/env node
// `npm run build:server`, after tsc: bundles the server's start path (src/cli.ts) into dist/cli.js plus chunks
// (dist/chunks/), so a start loads a handful of files instead of several hundred through Node's ESM loader
// (most of a start's CPU before bundling). `import()`s stay lazy: each becomes its own chunk.
//
// The analysis worker's entry is bundled the same way, in place of tsc's dist/media/analysis/analysis-worker.js
// (one file, no chunks): each scan starts two of them, and loading its few dozen modules one by one (Node's
// lexer runs over every CommonJS package an ES module imports) cost ~0.15 s of CPU per worker start.
//
// The walk thread's entry likewise (dist/scanner/walk-worker.js): it is small, but each scan after an idle half
// minute starts it again, and its modules one by one took ~20-40 ms of the scan's first tenth of a second.
//
// Everything else in dist/ is tsc's output and stays: benches import
// single modules from dist/. So that URLs computed from `import.meta.url` still point where they did (web/dist,
// the workers, createRequire), each source file's `import.meta.url` is replaced by the URL its tsc output has in
// dist/.
//
// Packages with native code, their own worker or data files, or loaded only on first use stay external and
// load from node_modules as before.
import { build } from 'esbuild';
import { performance } from 'node:perf_hooks';
import { cp, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Not bundled: native addons, packages that find files or workers next to themselves, and first-use-only ones. */
const EXTERNAL = [
  'better-sqlite3',
  'pg',
  'pg-native',
  'sharp',
  '@napi-rs/canvas',
  '@node-rs/argon2',
  'pdfjs-dist',
  'piscina',
  'node-unrar-js',
  'nodemailer',
  'prom-client',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'fast-xml-parser',
  '@rgrove/parse-xml',
  'foliate-js',
];

const importMetaUrlOfTscOutput = {
  name: 'import-meta-url-of-tsc-output',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const asJs = relative(src, args.path).replace(/\\/g, '/').replace(/\.ts$/, '.js');
      // globalThis.__colophonDist is set by the entry (banner): the dist/ folder's URL, whichever chunk runs this.
      const url = `new URL(${JSON.stringify(asJs)}, globalThis.__colophonDist).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/** CommonJS packages inside an ES module bundle call `require` (node built-ins, optional dependencies). */
function banner(distFromOutput) {
  return [
    "import { createRequire as __colophonCreateRequire } from 'node:module';",
    'const require = __colophonCreateRequire(import.meta.url);',
    `globalThis.__colophonDist ??= new URL(${distFromOutput}, import.meta.url).href;`,
  ].join('\n');
}

const common = {
  absWorkingDir: root,
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  plugins: [importMetaUrlOfTscOutput],
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
};

const started = performance.now();
const [server, worker, walker] = await Promise.all([
  build({
    ...common,
    entryPoints: { cli: 'src/cli.ts' },
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    banner: { js: banner("/\\/chunks\\/[^/]*$/.test(import.meta.url) ? '../' : './'") },
  }),
  build({
    ...common,
    entryPoints: { 'media/analysis/analysis-worker': 'src/media/analysis/analysis-worker.ts' },
    splitting: false,
    banner: { js: banner("'../../'") },
  }),
  build({
    ...common,
    entryPoints: { 'libraries/scanning/scanner/walk-worker': 'src/libraries/scanning/scanner/walk-worker.ts' },
    splitting: false,
    banner: { js: banner("'../'") },
  }),
]);
const outputs = [server, worker, walker].flatMap((r) => Object.keys(r.metafile.outputs)).filter((f) => f.endsWith('.js'));
// V8 keeps each script's source in the heap for as long as it runs, two bytes a character when a single one lies
// beyond Latin-1: one such character made the 2.9 MB bundle cost 5.8 MB in every server. esbuild escapes
// non-ASCII text except where escaping would change the meaning (a String.raw template, some regular
// expressions), so the sources must write those with \u escapes; this catches the next one.
for (const file of outputs) {
  const text = await readFile(join(root, file), 'utf8');
  const at = text.search(/[\u{100}-\u{10ffff}]/u);
  if (at >= 0) {
    console.error(
      `${file}: non-Latin-1 text in the bundle (write it as a \\u escape in the source): …${text.slice(Math.max(0, at - 60), at + 20)}…`,
    );
    process.exit(1);
  }
}
// The server's message catalogues are read at run time, next to the code that reads them (src/i18n/messages.ts).
await cp(join(root, 'src', 'i18n', 'locales'), join(root, 'dist', 'i18n', 'locales'), { recursive: true });
console.log(
  `bundled dist/cli.js, the analysis and walk workers and ${outputs.length - 3} chunks in ${Math.round(performance.now() - started)} ms`,
);
