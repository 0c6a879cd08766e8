#!/usr/bin/env node
// `npm start`: builds what changed since the last build, then runs `colophon serve` (arguments after `--` are
// passed on) in this same process. One node process instead of a prestart script and then the server: each
// costs a node start-up and npm a lifecycle step through sh, time a user waits for on every start.
import { buildIfStale } from './build-if-stale.mjs';

buildIfStale();
process.argv = [process.argv[0], new URL('../dist/cli.js', import.meta.url).pathname, 'serve', ...process.argv.slice(2)];
await import('../dist/cli.js');
