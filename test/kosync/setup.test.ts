import { describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../helpers/auth.js';
import { call, createCatalogApp } from '../helpers/catalog.js';
import { koreaderClient } from '../helpers/koreader.js';

interface Setup {
  enabled: boolean;
  server_url: string | null;
  sync_url_template: string | null;
}

describe('GET /api/v1/me/koreader: the URL to paste into KOReader', () => {
  it('is the public URL and prefix with an {api_key} slot; the filled URL authenticates KOReader', async () => {
    const t = await createCatalogApp(
      { server: { public_url: 'https://books.example.org/' }, koreader: { prefix: '/sync/ko' } },
      { start: false },
    );
    try {
      const reader = await createUser(t, 'reader');
      const res = await call<Setup>(t, reader.headers, 'GET', '/api/v1/me/koreader');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        enabled: true,
        server_url: 'https://books.example.org/sync/ko',
        sync_url_template: 'https://books.example.org/sync/ko/{api_key}',
      });
      const { key } = await createApiKey(t, reader.headers, { name: 'Kobo' });
      const path = new URL(res.body.sync_url_template!.replace('{api_key}', key)).pathname;
      expect(await koreaderClient(t, 'anything', path)('GET', '/users/auth')).toMatchObject({ status: 200, body: { authorized: 'OK' } });
      expect((await call(t, {}, 'GET', '/api/v1/me/koreader')).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it("says when the sync server is off; without public_url the request's host is the base", async () => {
    const off = await createCatalogApp({ koreader: { enabled: false } }, { start: false });
    try {
      const reader = await createUser(off, 'reader');
      expect((await call<Setup>(off, reader.headers, 'GET', '/api/v1/me/koreader')).body).toEqual({
        enabled: false,
        server_url: null,
        sync_url_template: null,
      });
    } finally {
      await off.close();
    }
    const on = await createCatalogApp({}, { start: false });
    try {
      const reader = await createUser(on, 'reader');
      const res = await call<Setup>(on, { ...reader.headers, host: 'reader.local:8080' }, 'GET', '/api/v1/me/koreader');
      expect(res.body.sync_url_template).toBe('http://reader.local:8080/koreader/{api_key}');
    } finally {
      await on.close();
    }
  });
});
