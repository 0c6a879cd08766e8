import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';

const here = path.dirname(new URL(import.meta.url).pathname);

/**
 * Each of these costs a start 0.1–0.5 s and several MB, and a server answering /health on SQLite with API docs off
 * needs none of them: they load when first used (PostgreSQL, the first scrape, password, e-mail, analysis, XML).
 */
const LOADED_ON_FIRST_USE = [
  'pg',
  'prom-client',
  '@node-rs/argon2',
  'nodemailer',
  'piscina',
  'fast-xml-parser',
  '@rgrove/parse-xml',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'sharp',
  'pdfjs-dist',
  '@napi-rs/canvas',
];

describe('start-up', () => {
  it('serves /health without loading the packages only some requests need', async () => {
    const dir = makeTempDir();
    const script = path.join(here, 'processes/start-packages.ts');
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', script, path.join(dir, 'data'), path.join(dir, 'resolved.txt')],
      { env: process.env, timeout: 100_000 },
    );
    const { health, packages } = JSON.parse(run.stdout) as { health: number; packages: string[] };
    expect(health).toBe(200);
    expect(packages).toContain('fastify'); // the hook saw the server's imports
    expect(packages.filter((name) => LOADED_ON_FIRST_USE.includes(name))).toEqual([]);
    // Starting a TypeScript process takes seconds, many more on a busy machine.
  }, 120_000);
});
