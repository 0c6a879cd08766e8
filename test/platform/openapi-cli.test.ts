import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { makeTempDir } from '../helpers/temp-dir.js';

// The CLI writes the description without a database: this file is engine-free (test/engine-free.ts).
const run = promisify(execFile);
const CLI = path.resolve('src/cli.ts');
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, COLOPHON_LOGGING__LEVEL: 'silent', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
// Each call compiles the whole server from source in a new process: tens of seconds on a busy two-core machine.
vi.setConfig({ testTimeout: 120_000 });

describe('colophon openapi writes the description without a server or a database', () => {
  it('json to stdout is a valid OpenAPI 3.1 document with version 2.5.0 and the X-API-Key scheme', async () => {
    const dataDir = path.join(makeTempDir(), 'never-created');
    const { stdout } = await cli(['openapi', '--format', 'json'], { COLOPHON_DATA_DIR: dataDir });
    const doc = JSON.parse(stdout);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2.5.0');
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    await SwaggerParser.validate(structuredClone(doc));
    for (const [route, ops] of Object.entries<Record<string, { tags?: string[]; summary?: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.tags?.length, `${method} ${route} has a tag`).toBeGreaterThan(0);
        expect(op.summary, `${method} ${route} has a summary`).toBeTruthy();
      }
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('yaml to a file', async () => {
    const out = path.join(makeTempDir(), 'openapi.yaml');
    await cli(['openapi', '--format', 'yaml', '--output', out]);
    const doc = YAML.parse(readFileSync(out, 'utf8'));
    expect(doc.info.version).toBe('2.5.0');
    await SwaggerParser.validate(doc);
  });

  it('bad flags print usage and exit 2', async () => {
    const err = await cli(['openapi', '--format', 'xml']).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain('Usage: colophon openapi');
  });
});
