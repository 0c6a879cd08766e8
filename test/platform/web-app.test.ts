import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppNavigation } from '../../src/http/web-app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("colophon web app");';

/** A built web app as vite lays it out: index.html, hashed assets, and a file kept at the root. */
function builtWebApp(): string {
  const root = makeTempDir('colophon-web-');
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'index.html'), INDEX);
  writeFileSync(path.join(root, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return root;
}

describe('The web app served at /', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ server: { trust_proxy: true }, api: { enable_api_docs: true } }, { webAppDir: builtWebApp() });
  });
  afterAll(() => t.close());

  it('answers / with index.html, revalidated on every load', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: HTML } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(INDEX);
  });

  it('serves hashed assets as immutable for a year, without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/index-Ab12Cd34.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe(SCRIPT);
  });

  it('caches unhashed root files for a day only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('answers a browser navigation to an app URL with index.html (the SPA fallback)', async () => {
    for (const url of [
      '/series/0b7e5c1e-8f1a-4d0e-9a53-6c1f7a2f0c11',
      '/libraries?sort=name,desc&genre=Action',
      '/setup',
      '/books/x/read',
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: HTML } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.body, url).toBe(INDEX);
    }
  });

  it('keeps the JSON 404 for unknown paths that are not navigations (fetch, missing files)', async () => {
    const fromFetch = await t.app.inject({ method: 'GET', url: '/series/abc', headers: { accept: '*/*' } });
    expect(fromFetch.statusCode).toBe(404);
    expect(fromFetch.json()).toMatchObject({ error: 'NotFound' });
    const missingAsset = await t.app.inject({ method: 'GET', url: '/assets/gone-12345678.js', headers: { accept: HTML } });
    expect(missingAsset.statusCode).toBe(404);
    expect(missingAsset.json()).toMatchObject({ error: 'NotFound' });
    const post = await t.app.inject({ method: 'POST', url: '/series/abc', headers: { accept: HTML } });
    expect(post.statusCode).toBe(404);
  });

  it('never shadows the API, the feeds, the Komga prefix, /health or /docs, even for a browser', async () => {
    const cases: Array<[string, number]> = [
      ['/api/v1/does-not-exist', 404],
      ['/api/v2/anything', 404],
      ['/api/v1/setup/status', 200],
      ['/opds/v1/nothing-here', 404],
      ['/komga/api/v1/series', 404],
      ['/anyprefix/api/v1/libraries', 404],
      ['/health', 200],
      ['/metrics', 404],
    ];
    for (const [url, status] of cases) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: HTML } });
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      if (status === 404) expect(res.json(), url).toMatchObject({ error: 'NotFound' });
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs/nothing-here', headers: { accept: HTML } });
    expect(docs.body).not.toBe(INDEX);
  });

  it('sends a CSP that lets the UI and the reader use blob: images and workers, over plain HTTP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: HTML } });
    const csp = res.headers['content-security-policy'] as string;
    const directive = (name: string) =>
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `));
    expect(directive('img-src')).toBe("img-src 'self' blob: data:");
    expect(directive('worker-src')).toBe("worker-src 'self' blob:");
    // The EPUB reader lays chapters out in blob: frames with the book's fonts.
    expect(directive('frame-src')).toBe("frame-src 'self' blob:");
    expect(directive('font-src')).toBe("font-src 'self' blob: data:");
    expect(directive('connect-src')).toBe("connect-src 'self'");
    expect(directive('script-src')).toBe("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends HSTS only when the request came over HTTPS (here through a trusted proxy)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: HTML, 'x-forwarded-proto': 'https' } });
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  });
});

describe('Without a built web app', () => {
  it('serves the API alone: / keeps the JSON 404', async () => {
    const t = await createTestApp({}, { webAppDir: makeTempDir('colophon-no-web-') });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: HTML } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'NotFound' });
    } finally {
      await t.close();
    }
  });
});

describe('isAppNavigation', () => {
  it('tells navigations from API calls, files and other methods', () => {
    expect(isAppNavigation('GET', '/', HTML, '/docs')).toBe(true);
    expect(isAppNavigation('HEAD', '/libraries/x', HTML, '/docs')).toBe(true);
    expect(isAppNavigation('GET', '/libraries/x', 'application/json', '/docs')).toBe(false);
    expect(isAppNavigation('GET', '/libraries/x', undefined, '/docs')).toBe(false);
    expect(isAppNavigation('DELETE', '/libraries/x', HTML, '/docs')).toBe(false);
    expect(isAppNavigation('GET', '/reference/x', HTML, '/reference')).toBe(false);
    expect(isAppNavigation('GET', '/x/api/v1/books', HTML, '/docs')).toBe(false);
    expect(isAppNavigation('GET', '/robots.txt', HTML, '/docs')).toBe(false);
  });
});

/** A LAN address of this machine, as a phone on the same network would reach the server. */
function lanAddress(): string | undefined {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

describe('Over a non-loopback address (a LAN client over plain HTTP)', () => {
  const address = lanAddress();
  it.skipIf(!address)(
    `loads the app and its assets without HTTPS upgrades${address ? '' : ' (skipped: this machine has no non-loopback IPv4 address)'}`,
    async () => {
      const t = await createTestApp({}, { webAppDir: builtWebApp() });
      try {
        await t.app.listen({ host: '0.0.0.0', port: 0 });
        const port = (t.app.server.address() as { port: number }).port;
        const base = `http://${address}:${port}`;
        const page = await fetch(`${base}/library`, { headers: { accept: HTML } });
        expect(page.status).toBe(200);
        expect(await page.text()).toBe(INDEX);
        expect(page.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
        expect(page.headers.get('strict-transport-security')).toBeNull();
        const script = await fetch(`${base}/assets/index-Ab12Cd34.js`);
        expect(script.status).toBe(200);
        const api = await fetch(`${base}/api/v1/setup/status`);
        expect(await api.json()).toMatchObject({ setup_required: true });
      } finally {
        await t.close();
      }
    },
  );
});
