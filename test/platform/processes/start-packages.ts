/**
 * Run as its own process by lazy-packages.test.ts: starts the server as `colophon serve` does (SQLite, a fresh
 * data folder), asks `/health`, then prints as JSON the npm packages whose modules were resolved meanwhile
 * (a module resolve hook sees every `import` and `import()`; the CommonJS module cache, what `require` loaded).
 * Usage: node --import tsx start-packages.ts <data folder> <file the hook writes to>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const [dataDir, logFile] = process.argv.slice(2);
if (!dataDir || !logFile) throw new Error('usage: start-packages.ts <data folder> <log file>');
writeFileSync(logFile, '');
const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const found = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(resolved.url);
  if (found) appendFileSync(${JSON.stringify(logFile)}, found[1] + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const { loadConfig } = await import('../../../src/config/load.js');
const { startServer } = await import('../../../src/server.js');
const config = loadConfig({
  env: { COLOPHON_DATA_DIR: dataDir, COLOPHON_SERVER__HOST: '127.0.0.1', COLOPHON_SERVER__PORT: '0', COLOPHON_LOGGING__LEVEL: 'warn' },
});
const server = await startServer(config, { logger: false });
const health = await fetch(`${server.address}/health`);
const required = Object.keys(createRequire(import.meta.url).cache).map(
  (file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? '',
);
const packages = [...new Set([...readFileSync(logFile, 'utf8').split('\n'), ...required].filter(Boolean))].sort();
await server.stop();
process.stdout.write(JSON.stringify({ health: health.status, packages }));
