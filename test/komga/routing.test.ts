import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { enableKomga, expectKomga, send, writeKomgaCorpus } from './helpers.js';

async function setSetting(t: CatalogTestApp, key: string, value: unknown): Promise<void> {
  const res = await send(t, 'PUT', `/api/v1/admin/settings/${key}`, t.headers, { value });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('Compatibility API: disabled by default', () => {
  let t: CatalogTestApp;
  beforeAll(async () => {
    t = await createCatalogApp({}, { start: false });
  });
  afterAll(() => t.close());

  it('every path under the prefix is a 404 (not a 401) while disabled, with or without credentials', async () => {
    for (const url of [
      '/komga/api/v1/libraries',
      '/komga/api/v1/series',
      '/komga/api/v2/users/me',
      '/komga/api/v1/books/00000000-0000-7000-8000-000000000000/pages/1',
    ]) {
      const anonymous = await send(t, 'GET', url);
      expect(anonymous.status, url).toBe(404);
      expect(anonymous.headers['www-authenticate']).toBeUndefined();
      expect((await send(t, 'GET', url, t.headers)).status, url).toBe(404);
    }
  });

  it('switching komga_api_enabled on serves the API at once, off hides it again', async () => {
    await setSetting(t, 'komga_api_enabled', true);
    expect((await send(t, 'GET', '/komga/api/v1/libraries', t.headers)).status).toBe(200);
    await setSetting(t, 'komga_api_enabled', false);
    expect((await send(t, 'GET', '/komga/api/v1/libraries', t.headers)).status).toBe(404);
  });
});

describe('Compatibility API: path /{prefix}/api/v1/, prefix configurable at runtime', () => {
  let t: CatalogTestApp;
  let seriesId: string;
  let reader: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    t = await createCatalogApp({ ...enableKomga, api: { enable_api_docs: true } });
    await scannedLibrary(t, writeKomgaCorpus);
    reader = await createUser(t, 'reader');
    const list = await send<{ content: { id: string; name: string }[] }>(t, 'GET', '/komga/api/v1/series?search=batman', t.headers);
    seriesId = list.body.content[0]!.id;
  });
  afterAll(() => t.close());

  it('config komga_api.enabled serves the API under the default prefix "komga"', async () => {
    const res = await send(t, 'GET', '/komga/api/v1/libraries', t.headers);
    expect(res.status).toBe(200);
    expectKomga(res.body, 'array:LibraryDto');
  });

  it('a missing login is a 401 with a Basic challenge (OkHttp then retries with Basic)', async () => {
    const res = await send(t, 'GET', '/komga/api/v1/series');
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
  });

  it('Bearer JWT works too', async () => {
    expect((await send(t, 'GET', '/komga/api/v1/series', reader.headers)).status).toBe(200);
    expect((await send(t, 'GET', '/komga/api/v1/series', basic(reader.username, 'wrong password'))).status).toBe(401);
  });

  it('the native API, OPDS, /health and the docs path are untouched by the prefix route', async () => {
    expect((await send(t, 'GET', '/health')).status).toBe(200);
    const openapi = await send<{ paths: Record<string, unknown> }>(t, 'GET', '/docs/json');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.body.paths).filter((p) => p.includes('komga'))).toEqual([]);
    expect((await send(t, 'GET', '/opds/v2', t.headers)).status).toBe(200);
    expect((await send(t, 'GET', '/opds/v1.2/catalog', t.headers)).status).toBe(200);
    expect([200, 302]).toContain((await send(t, 'GET', '/docs')).status);
    expect((await send(t, 'GET', '/api/v1/series', t.headers)).status).toBe(200);
    expect((await send(t, 'GET', '/api/v1/libraries', t.headers)).status).toBe(200);
    const native = await send<{ data: unknown[] }>(t, 'GET', `/api/v1/series/${seriesId}`, t.headers);
    expect(native.body).toHaveProperty('book_count');
    expect((await send(t, 'GET', '/api/v1/nothing-here', t.headers)).status).toBe(404);
    // Other first segments are not the prefix: 404, as before.
    for (const url of ['/api/api/v1/series', '/opds/api/v1/series', '/docs/api/v1/series', '/health/api/v1/series']) {
      expect((await send(t, 'GET', url, t.headers)).status, url).toBe(404);
    }
  });

  it('changing komga_api_prefix moves the API without a restart', async () => {
    await setSetting(t, 'komga_api_prefix', 'manga');
    expect((await send(t, 'GET', '/komga/api/v1/libraries', t.headers)).status).toBe(404);
    const moved = await send(t, 'GET', `/manga/api/v1/series/${seriesId}`, t.headers);
    expect(moved.status).toBe(200);
    expectKomga(moved.body, 'SeriesDto');
    expect((await send(t, 'GET', '/manga/api/v2/users/me', t.headers)).status).toBe(200);
    const reset = await send(t, 'POST', '/api/v1/admin/settings/komga_api_prefix/reset', t.headers);
    expect(reset.status).toBe(200);
    expect((await send(t, 'GET', '/manga/api/v1/libraries', t.headers)).status).toBe(404);
    expect((await send(t, 'GET', '/komga/api/v1/libraries', t.headers)).status).toBe(200);
  });

  it('Paperback: paths with a trailing slash answer like those without', async () => {
    for (const url of [
      `/komga/api/v1/series/${seriesId}/`,
      '/komga/api/v1/genres/',
      '/komga/api/v1/libraries/',
      `/komga/api/v1/series/${seriesId}/books/?unpaged=true`,
      '/komga/api/v1/series/?page=0&size=10',
    ]) {
      const res = await send(t, 'GET', url, basic(reader.username, reader.password));
      expect(res.status, url).toBe(200);
      expect(res.headers.location, url).toBeUndefined();
    }
  });
});
