import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Headers) => t.app.inject({ method: 'GET', url, headers });
const permsOf = async (headers: Headers): Promise<string[]> => (await get('/api/v1/auth/me', headers)).json().permissions;

describe('API key format and storage', () => {
  it('create returns colophon_<8-char prefix>_<secret>; list and detail never show the secret', async () => {
    const admin = await adminHeaders(t);
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: admin, payload: { name: 'Kobo Libra' } });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.key).toMatch(/^colophon_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,}$/);
    expect(body.key_prefix).toBe(body.key.split('_')[1]);
    expect(body).toMatchObject({ name: 'Kobo Libra', expires_at: null, last_used_at: null });
    const list = await get('/api/v1/api-keys', admin);
    expect(list.statusCode).toBe(200);
    const item = list.json().data.find((k: { id: string }) => k.id === body.id);
    expect(Object.keys(item).sort()).toEqual(['created_at', 'expires_at', 'id', 'key_prefix', 'last_used_at', 'name', 'permissions']);
    expect(JSON.stringify(list.json())).not.toContain(body.key.split('_')[2]);
    const detail = await get(`/api/v1/api-keys/${body.id}`, admin);
    expect(detail.json()).not.toHaveProperty('key');
  });

  it('works as X-API-Key, as Bearer, and as Basic with username "api"', async () => {
    const { key } = await createApiKey(t, await adminHeaders(t));
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }, basic('api', key)]) {
      const res = await get('/api/v1/auth/me', headers);
      expect(res.statusCode).toBe(200);
      expect(res.json().api_key_id).toBeTruthy();
    }
  });

  it('last_used_at is recorded on use', async () => {
    const admin = await adminHeaders(t);
    const { id, key } = await createApiKey(t, admin);
    await get('/api/v1/auth/me', { 'x-api-key': key });
    await new Promise((r) => setTimeout(r, 100));
    expect((await get(`/api/v1/api-keys/${id}`, admin)).json().last_used_at).toEqual(expect.any(String));
  });
});

describe('Authentication rules for API keys', () => {
  it("rule 1: effective permissions = (role ∪ custom) ∩ the key's permissions", async () => {
    const reader = await createUser(t, 'reader', ['tasks-read']);
    const { key } = await createApiKey(t, reader.headers, { name: 'k', permissions: ['books-read', 'tasks-read', 'pages-read'] });
    expect(await permsOf({ 'x-api-key': key })).toEqual(['books-read', 'pages-read', 'tasks-read']);
  });

  it('rule 2: a key cannot be created with a permission the creator lacks; a maintainer cannot grant users-read', async () => {
    const maintainer = await createUser(t, 'maintainer');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: maintainer.headers,
      payload: { name: 'k', permissions: ['users-read'] },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().details).toEqual({ missing_permissions: ['users-read'] });
    // nor through another key: a narrow key cannot mint a wider one
    const { key } = await createApiKey(t, maintainer.headers, { name: 'narrow', permissions: ['api-keys-write', 'books-read'] });
    const wider = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { 'x-api-key': key },
      payload: { name: 'w', permissions: ['libraries-write'] },
    });
    expect(wider.statusCode).toBe(403);
  });

  it('rule 3: when the owner is downgraded, the key loses the permissions at once', async () => {
    const user = await createUser(t, 'maintainer');
    const { key } = await createApiKey(t, user.headers, { name: 'k', permissions: ['tasks-read', 'books-read'] });
    expect(await permsOf({ 'x-api-key': key })).toEqual(['books-read', 'tasks-read']);
    await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${user.id}`, headers: await adminHeaders(t), payload: { role: 'reader' } });
    expect(await permsOf({ 'x-api-key': key })).toEqual(['books-read']);
  });

  it("rule 4: omitted permissions take all of the creator's effective permissions", async () => {
    const reader = await createUser(t, 'reader');
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: reader.headers, payload: { name: 'all' } });
    expect(res.json().permissions).toEqual(await permsOf(reader.headers));
  });

  it('rule 5: the full key appears only in the create response', async () => {
    const admin = await adminHeaders(t);
    const { id, key } = await createApiKey(t, admin);
    const texts = [(await get('/api/v1/api-keys', admin)).body, (await get(`/api/v1/api-keys/${id}`, admin)).body];
    const put = await t.app.inject({ method: 'PUT', url: `/api/v1/api-keys/${id}`, headers: admin, payload: { name: 'renamed' } });
    texts.push(put.body);
    for (const text of texts) expect(text).not.toContain(key);
    expect(put.json().name).toBe('renamed');
  });

  it('rule 6 and errors case 1: a revoked key is invalid immediately; an expired key is rejected', async () => {
    const admin = await adminHeaders(t);
    const { id, key } = await createApiKey(t, admin);
    expect((await get('/api/v1/auth/me', { 'x-api-key': key })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${id}`, headers: admin })).statusCode).toBe(204);
    const revoked = await get('/api/v1/auth/me', { 'x-api-key': key });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.headers['www-authenticate']).toBeTruthy();

    const soon = new Date(Date.now() + 1500).toISOString();
    const expiring = await createApiKey(t, admin, { name: 'short-lived', expires_at: soon });
    expect((await get('/api/v1/auth/me', { 'x-api-key': expiring.key })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await get('/api/v1/auth/me', { 'x-api-key': expiring.key });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().message).toMatch(/expired/);

    const past = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: admin,
      payload: { name: 'p', expires_at: '2001-01-01T00:00:00Z' },
    });
    expect(past.statusCode).toBe(400);
  });

  it('rule 7 and errors case 1: a malformed key is rejected with InvalidApiKeyFormat', async () => {
    for (const bad of ['abc', 'colophon_short_secret', 'other_ABCDEFGH_0123456789012345678901234567890123', 'colophon_ABCDEFGH_tooShort']) {
      const res = await get('/api/v1/auth/me', { 'x-api-key': bad });
      expect(res.statusCode, bad).toBe(401);
      expect(res.json().error, bad).toBe('InvalidApiKeyFormat');
    }
    const bearer = await get('/api/v1/auth/me', { authorization: 'Bearer colophon_nope' });
    expect(bearer.json().error).toBe('InvalidApiKeyFormat');
    // right structure, unknown key: plain 401
    const unknown = await get('/api/v1/auth/me', { 'x-api-key': `colophon_ABCDEFGH_${'x'.repeat(40)}` });
    expect(unknown.json().error).toBe('Unauthorized');
  });

  it('rule 8: permission names are kebab-case on the wire; the colon form is accepted in requests', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: await adminHeaders(t),
      payload: { name: 'c', permissions: ['libraries:read', 'books:read'] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().permissions).toEqual(['libraries-read', 'books-read']);
  });

  it('errors case 2: a key whose owner no longer holds the permission an endpoint needs is denied there', async () => {
    const user = await createUser(t, 'reader', ['users-read']);
    const admin = await adminHeaders(t);
    await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${user.id}`, headers: admin, payload: { role: 'admin' } });
    const adminLogin = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: user.username, password: user.password },
    });
    const headers = { authorization: `Bearer ${adminLogin.json().access_token}` };
    const { key } = await createApiKey(t, headers, { name: 'k', permissions: ['users-read'] });
    expect((await get('/api/v1/users', { 'x-api-key': key })).statusCode).toBe(200);
    await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${user.id}`, headers: admin, payload: { role: 'maintainer' } });
    const denied = await get('/api/v1/users', { 'x-api-key': key });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().details).toEqual({ required_permission: 'users-read' });
  });

  it("keys of a deleted user stop working at once; another user's key is 404 to me", async () => {
    const user = await createUser(t, 'reader');
    const { id, key } = await createApiKey(t, user.headers);
    const other = await createUser(t, 'reader');
    expect((await get(`/api/v1/api-keys/${id}`, other.headers)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${id}`, headers: other.headers })).statusCode).toBe(404);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: await adminHeaders(t) });
    expect((await get('/api/v1/auth/me', { 'x-api-key': key })).statusCode).toBe(401);
  });
});

describe('Presets for keys', () => {
  it("GET /api-keys/presets lists the spec's four arrays and create accepts preset", async () => {
    const admin = await adminHeaders(t);
    const presets = (await get('/api/v1/api-keys/presets', admin)).json();
    expect(presets).toEqual([
      { name: 'reader_app', permissions: ['libraries-read', 'series-read', 'books-read', 'pages-read', 'progress-read', 'progress-write'] },
      { name: 'automation_script', permissions: ['libraries-read', 'libraries-write', 'tasks-read', 'tasks-write'] },
      { name: 'mobile_app', permissions: ['libraries-read', 'series-read', 'books-read', 'books-write', 'pages-read'] },
      { name: 'metadata_tool', permissions: ['libraries-read', 'series-read', 'series-write', 'books-read', 'books-write'] },
    ]);
    for (const preset of presets as Array<{ name: string; permissions: string[] }>) {
      const { key } = await createApiKey(t, admin, { name: preset.name, preset: preset.name });
      expect((await permsOf({ 'x-api-key': key })).sort()).toEqual([...preset.permissions].sort());
    }
  });

  it('a reader cannot use a preset that needs more than a reader holds', async () => {
    const reader = await createUser(t, 'reader');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: reader.headers,
      payload: { name: 'x', preset: 'automation_script' },
    });
    expect(res.statusCode).toBe(403);
  });
});
