import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, createApiKey, createUser } from '../helpers/auth.js';

/** Real HTTP from 127.0.0.1 (the TCP peer the proxy rules look at); answers status and JSON body. */
async function call(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}

describe('header sign-in from a trusted proxy', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({
      auth: { proxy: { enabled: true, trusted_proxies: ['127.0.0.1/32', '::1'], provision: true, default_role: 'maintainer' } },
    } as never);
    await adminHeaders(t);
    base = await listening(t);
  });
  afterAll(async () => t?.close());

  it('names the user on every request and opens a web session like a password sign-in', async () => {
    const me = await call(base, '/api/v1/auth/me', { 'remote-user': ADMIN.username.toUpperCase() });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: ADMIN.username, auth_method: 'proxy', role: 'admin' });

    const session = await call(base, '/api/v1/auth/proxy-session', { 'remote-user': ADMIN.username }, 'POST');
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ token_type: 'Bearer', user: { username: ADMIN.username } });
    const withToken = await call(base, '/api/v1/auth/me', { authorization: `Bearer ${String(session.body.access_token)}` });
    expect(withToken.body).toMatchObject({ username: ADMIN.username, auth_method: 'jwt' });

    // Without the header, nothing: the proxy-session route answers like any anonymous request.
    expect((await call(base, '/api/v1/auth/me', {})).status).toBe(401);
    expect((await call(base, '/api/v1/auth/proxy-session', {}, 'POST')).status).toBe(401);
  });

  it('refuses a disabled user on the very next request', async () => {
    const user = await createUser(t, 'reader');
    const as = { 'remote-user': user.username };
    expect((await call(base, '/api/v1/auth/me', as)).status).toBe(200);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: await adminHeaders(t),
      payload: { disabled: true },
    });
    expect(patched.statusCode).toBe(200);
    const refused = await call(base, '/api/v1/auth/me', as);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/disabled/);
    expect((await call(base, '/api/v1/auth/proxy-session', as, 'POST')).status).toBe(401);
  });

  it('provisions an unknown username with the default role, and refuses a name Colophon cannot use', async () => {
    const me = await call(base, '/api/v1/auth/me', { 'remote-user': 'new.person' });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'new.person', role: 'maintainer', auth_method: 'proxy' });
    const again = await call(base, '/api/v1/auth/me', { 'remote-user': 'New.Person' });
    expect(again.body.id).toBe(me.body.id);
    expect((await call(base, '/api/v1/auth/me', { 'remote-user': 'not a name!' })).status).toBe(401);
  });

  it('never overrides explicit credentials: an API key wins, a wrong token is refused', async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers);
    const me = await call(base, '/api/v1/auth/me', { 'x-api-key': key, 'remote-user': ADMIN.username });
    expect(me.body).toMatchObject({ username: reader.username, auth_method: 'api_key' });
    const wrong = await call(base, '/api/v1/auth/me', { authorization: 'Bearer not-a-token', 'remote-user': ADMIN.username });
    expect(wrong.status).toBe(401);
    // The session route opens sessions for proxy sign-ins only.
    expect((await call(base, '/api/v1/auth/proxy-session', { 'x-api-key': key, 'remote-user': ADMIN.username }, 'POST')).status).toBe(401);
  });
});

describe('header sign-in from an address that is not a trusted proxy', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ auth: { proxy: { enabled: true, trusted_proxies: ['10.0.0.0/8'], provision: false } } } as never);
    await adminHeaders(t);
    base = await listening(t);
  });
  afterAll(async () => t?.close());

  it('ignores the header entirely: the same 401 as without it', async () => {
    const plain = await call(base, '/api/v1/auth/me', {});
    const spoofed = await call(base, '/api/v1/auth/me', { 'remote-user': ADMIN.username, 'x-forwarded-for': '10.0.0.1' });
    expect(spoofed).toEqual(plain);
    expect(spoofed.status).toBe(401);
    expect((await call(base, '/api/v1/auth/proxy-session', { 'remote-user': ADMIN.username }, 'POST')).status).toBe(401);
  });

  it('from the configured range it names known users, and without provisioning refuses unknown ones', async () => {
    const from = (user: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/auth/me', remoteAddress: '10.1.2.3', headers: { 'remote-user': user } });
    expect((await from(ADMIN.username)).json()).toMatchObject({ username: ADMIN.username, auth_method: 'proxy' });
    const unknown = await from('stranger');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json<{ message: string }>().message).toMatch(/no Colophon account/);
  });
});
