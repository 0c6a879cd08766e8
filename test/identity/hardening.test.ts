import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/http/types.js';
import { createTestApp, createTestDatabase, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, createApiKey } from '../helpers/auth.js';

describe('Hardening: security headers and CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ server: { cors: { enabled: true, origins: ['https://reader.example.org'] } } });
  });
  afterAll(() => t.close());

  it('sends security headers on API responses', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/setup/status' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBeDefined();
    // Over plain HTTP (a LAN address) HSTS would be ignored at best; it is sent on HTTPS only (test/platform/web-app.test.ts).
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('answers CORS only for configured origins', async () => {
    const allowed = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/setup/status',
      headers: { origin: 'https://reader.example.org', 'access-control-request-method': 'GET' },
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://reader.example.org');
    const denied = await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { origin: 'https://evil.example.com' } });
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Hardening: secrets never reach the logs', () => {
  it('passwords, tokens, API keys and the JWT secret are absent from trace-level logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const { config, database, drop } = await createTestDatabase();
    // With the access log on, every request's lines are there to search.
    config.logging.access_log = true;
    const app: App = await buildApp({ config, database, logger: { level: 'trace', stream } });
    await app.ready();
    const t = {
      app,
      config,
      database,
      close: async () => {
        await app.close();
        await drop();
      },
    };
    try {
      const headers = await adminHeaders(t);
      const { key } = await createApiKey(t, headers);
      await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { 'x-api-key': key } });
      await app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN.password}`).toString('base64')}` },
      });
      await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: 'wrong-secret-password' } });
      const log = lines.join('\n');
      expect(lines.length).toBeGreaterThan(3);
      for (const secret of [
        ADMIN.password,
        'wrong-secret-password',
        key,
        key.split('_')[2]!,
        headers.authorization!.slice(7),
        config.auth.jwt_secret!,
      ]) {
        expect(log).not.toContain(secret);
      }
    } finally {
      await t.close();
    }
  });
});
