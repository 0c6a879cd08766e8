import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { enableKomga } from '../komga/helpers.js';

let t: TestApp;
let admin: Headers;
beforeAll(async () => {
  t = await createTestApp(enableKomga);
  admin = await adminHeaders(t);
});
afterAll(() => t.close());

const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

async function login(username: string, password: string): Promise<Headers> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
  expect(res.statusCode).toBe(200);
  return bearer(res.json<{ access_token: string }>().access_token);
}

/** Status of a native call with these headers. */
const me = async (headers: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers })).statusCode;

/** Opens a Komga session the way Mihon does (one Basic request) and returns the cookie value. */
async function komgaSession(username: string, password: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/komga/api/v1/libraries', headers: basic(username, password) });
  expect(res.statusCode).toBe(200);
  const header = res.headers['set-cookie'];
  const cookie = /^KOMGA-SESSION=([^;]+)/.exec(Array.isArray(header) ? header[0]! : String(header))?.[1];
  expect(cookie).toBeTruthy();
  return cookie!;
}

/** Status of a Komga call made with the session alone (cookie, or the X-Auth-Token header). */
const komga = async (session: string, via: 'cookie' | 'header' = 'cookie') =>
  (
    await t.app.inject({
      method: 'GET',
      url: '/komga/api/v2/users/me',
      headers: via === 'cookie' ? { cookie: `KOMGA-SESSION=${session}` } : { 'x-auth-token': session },
    })
  ).statusCode;

const updateUser = async (id: string, payload: Record<string, unknown>, headers = admin) => {
  const res = await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${id}`, headers, payload });
  expect(res.statusCode, res.body).toBe(200);
};

describe('Sessions end when the password changes', () => {
  it('an old JWT and an old Komga session are refused after an admin sets a new password; the new one works', async () => {
    const user = await createUser(t, 'reader');
    const session = await komgaSession(user.username, user.password);
    expect(await me(user.headers)).toBe(200);
    expect(await komga(session)).toBe(200);
    await updateUser(user.id, { password: 'a-brand-new-password' });
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error).toBe('Unauthorized');
    expect(await komga(session)).toBe(401);
    expect(await komga(session, 'header')).toBe(401);
    expect(await me(await login(user.username, 'a-brand-new-password'))).toBe(200);
  });

  it('an administrator changing their own password ends their own older sessions too', async () => {
    const self = await createUser(t, 'admin');
    const other = await login(self.username, self.password);
    await updateUser(self.id, { password: 'my-own-new-password' }, self.headers);
    expect(await me(self.headers)).toBe(401);
    expect(await me(other)).toBe(401);
    expect(await me(await login(self.username, 'my-own-new-password'))).toBe(200);
  });

  it('a new role or new permissions end the sessions; an unrelated change (e-mail verified) does not', async () => {
    const user = await createUser(t, 'reader');
    await updateUser(user.id, { email_verified: true });
    expect(await me(user.headers)).toBe(200);
    await updateUser(user.id, { role: 'maintainer' });
    expect(await me(user.headers)).toBe(401);
    const again = await login(user.username, user.password);
    await updateUser(user.id, { permissions: ['tasks-read'] });
    expect(await me(again)).toBe(401);
  });
});

describe('Komga logout', () => {
  it('ends the session: the same cookie (or X-Auth-Token) is refused afterwards, other sessions live on', async () => {
    const user = await createUser(t, 'reader');
    const [ended, kept] = [await komgaSession(user.username, user.password), await komgaSession(user.username, user.password)];
    const logout = await t.app.inject({ method: 'POST', url: '/komga/api/logout', headers: { cookie: `KOMGA-SESSION=${ended}` } });
    expect(logout.statusCode).toBe(204);
    expect(String(logout.headers['set-cookie'])).toMatch(/^KOMGA-SESSION=;.*Max-Age=0/);
    expect(await komga(ended)).toBe(401);
    expect(await komga(ended, 'header')).toBe(401);
    expect(await komga(kept)).toBe(200);
    // GET works too (Komga answers both), with the token in the header.
    expect((await t.app.inject({ method: 'GET', url: '/komga/api/logout', headers: { 'x-auth-token': kept } })).statusCode).toBe(204);
    expect(await komga(kept)).toBe(401);
  });

  it('a session opened with an API key ends at logout while the key itself keeps working', async () => {
    const user = await createUser(t, 'reader');
    const { key } = await createApiKey(t, user.headers, { name: 'reader app', preset: 'reader_app' });
    const opened = await t.app.inject({ method: 'GET', url: '/komga/api/v1/libraries', headers: { 'x-api-key': key } });
    const session = /^KOMGA-SESSION=([^;]+)/.exec(String(opened.headers['set-cookie']))![1]!;
    expect(await komga(session)).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/komga/api/logout', headers: { cookie: `KOMGA-SESSION=${session}` } })).statusCode,
    ).toBe(204);
    expect(await komga(session)).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/komga/api/v1/libraries', headers: { 'x-api-key': key } })).statusCode).toBe(200);
  });
});

describe('POST /api/v1/auth/logout-all (sign out everywhere)', () => {
  it('ends every JWT and Komga session of the account, the one used included; Basic and API keys keep working', async () => {
    const user = await createUser(t, 'reader');
    const laptop = await login(user.username, user.password);
    const phone = await login(user.username, user.password);
    const session = await komgaSession(user.username, user.password);
    const { key } = await createApiKey(t, laptop, { name: 'script' });
    const bystander = await createUser(t, 'reader');

    const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers: laptop });
    expect(res.statusCode).toBe(204);
    expect(await me(laptop)).toBe(401);
    expect(await me(phone)).toBe(401);
    expect(await me(user.headers)).toBe(401);
    expect(await komga(session)).toBe(401);
    expect(await me({ 'x-api-key': key })).toBe(200);
    expect(await me(basic(user.username, user.password))).toBe(200);
    expect(await me(bystander.headers)).toBe(200);
    expect(await me(await login(user.username, user.password))).toBe(200);
  });

  it("refuses API-key callers (403 with the error body): the owner's sessions stay open", async () => {
    const user = await createUser(t, 'reader');
    const session = await login(user.username, user.password);
    const { key } = await createApiKey(t, session, { name: 'device' });
    for (const headers of [{ 'x-api-key': key }, bearer(key), basic('api', key)]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'Forbidden', details: null });
      expect(typeof res.json().message).toBe('string');
    }
    expect(await me(session)).toBe(200);
  });

  it('needs a caller (401 without one) and is in the OpenAPI description', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all' })).statusCode).toBe(401);
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { summary?: string }>> };
    expect(doc.paths['/api/v1/auth/logout-all']?.post?.summary).toMatch(/Sign out everywhere/);
  });
});

describe('Disabling a user', () => {
  it('ends the sessions, and re-enabling does not revive them', async () => {
    const user = await createUser(t, 'reader');
    const session = await komgaSession(user.username, user.password);
    await updateUser(user.id, { disabled: true });
    expect(await me(user.headers)).toBe(401);
    expect(await komga(session)).toBe(401);
    await updateUser(user.id, { disabled: false });
    expect(await me(user.headers)).toBe(401);
    expect(await komga(session)).toBe(401);
    expect(await me(await login(user.username, user.password))).toBe(200);
  });
});

describe('Upgrading to security stamps', () => {
  it('a token from before (no stamp claim) works while its user keeps the empty stamp the migration gives, and ends with the first change', async () => {
    const user = await createUser(t, 'reader');
    // The state migration 0012 leaves an existing user in.
    await t.database.db.updateTable('users').set({ security_stamp: '' }).where('id', '=', user.id).execute();
    const older = await new SignJWT({ role: 'reader' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('1h')
      .setIssuer('colophon')
      .sign(new TextEncoder().encode(t.config.auth.jwt_secret!));
    expect(await me(bearer(older))).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers: bearer(older) })).statusCode).toBe(204);
    expect(await me(bearer(older))).toBe(401);
  });
});
