import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('interactive docs UI', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is off by default', async () => {
    t = await createTestApp();
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(404);
  });

  it('is served at /docs when enabled', async () => {
    t = await createTestApp({ api: { enable_api_docs: true } });
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.json().info.version).toBe('2.5.0');
  });

  it('honours a custom path', async () => {
    t = await createTestApp({ api: { enable_api_docs: true, api_docs_path: '/api-reference' } });
    expect((await t.app.inject({ method: 'GET', url: '/api-reference/' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(404);
  });

  it('an environment variable overrides the setting', async () => {
    const { loadConfig } = await import('../../src/config/load.js');
    const file = path.join(makeTempDir(), 'colophon.yaml');
    (await import('node:fs')).writeFileSync(file, 'api:\n  enable_api_docs: false\n');
    expect(loadConfig({ file, env: { COLOPHON_API__ENABLE_API_DOCS: 'true' } }).api.enable_api_docs).toBe(true);
    t = await createTestApp({ api: { enable_api_docs: true } });
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
  });
});
