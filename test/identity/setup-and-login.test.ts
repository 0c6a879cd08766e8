import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, createUser } from '../helpers/auth.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('Setup: GET /setup/status and POST /setup/initialize', () => {
  it('reports setup_required until an admin exists; authenticated endpoints point to setup', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/api/v1/setup/status' });
    expect(status.statusCode).toBe(200);
    expect(status.json().setup_required).toBe(true);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' });
    expect(me.statusCode).toBe(401);
    expect(me.json().error).toBe('Unauthorized');
    expect(me.json().message).toContain('/api/v1/setup/initialize');
    expect(me.headers['www-authenticate']).toContain('Bearer');
  });

  it('creates the first admin and returns the login response with 201', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/setup/initialize', payload: ADMIN });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(86400);
    expect(body.user).toEqual({ id: expect.any(String), username: 'admin', email: 'admin@example.org', role: 'admin' });
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type', 'user']);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status' })).json().setup_required).toBe(false);
  });

  it('answers 409 Conflict to any later call', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/setup/initialize',
      payload: { ...ADMIN, username: 'other', email: 'o@example.org' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('Conflict');
  });

  it('rejects a weak password or bad e-mail with 400 naming the field', async () => {
    const fresh = await createTestApp();
    try {
      const res = await fresh.app.inject({
        method: 'POST',
        url: '/api/v1/setup/initialize',
        payload: { username: 'a1', email: 'not-an-email', password: 'short' },
      });
      expect(res.statusCode).toBe(400);
      const fields = res.json().details.map((d: { field: string }) => d.field);
      expect(fields).toEqual(expect.arrayContaining(['email', 'password']));
      expect((await fresh.app.inject({ method: 'GET', url: '/api/v1/setup/status' })).json().setup_required).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});

describe('Login and JWT', () => {
  it('logs in by username or e-mail, case-insensitively, with a HS256 JWT carrying sub, role, jti, iat, exp', async () => {
    for (const username of ['admin', 'ADMIN', 'admin@example.org']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password: ADMIN.password } });
      expect(res.statusCode, username).toBe(200);
      const claims = decodeJwt(res.json().access_token);
      expect(claims).toMatchObject({ sub: res.json().user.id, role: 'admin' });
      expect(typeof claims.jti).toBe('string');
      expect(claims.exp! - claims.iat!).toBe(86400);
    }
  });

  it('answers wrong password and unknown user with the same generic 401', async () => {
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'nope-nope-nope' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'ghost', password: 'nope-nope-nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ error: 'Unauthorized', message: 'Invalid username or password', details: null });
  });

  it('GET /auth/me returns the user with effective permissions', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: await adminHeaders(t) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ username: 'admin', role: 'admin', auth_method: 'jwt' });
    expect(res.json().permissions).toHaveLength(30);
  });

  it('POST /auth/logout revokes the token; other tokens keep working', async () => {
    const login = async () =>
      (await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: ADMIN.password } })).json()
        .access_token as string;
    const first = await login();
    const second = await login();
    const out = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: { authorization: `Bearer ${first}` } });
    expect(out.statusCode).toBe(204);
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${first}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toContain('revoked');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${second}` } })).statusCode).toBe(
      200,
    );
  });

  it('rejects a tampered or foreign-secret token', async () => {
    const token = (await adminHeaders(t)).authorization!.slice(7);
    const [h, p] = token.split('.');
    const forged = `${h}.${p}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${forged}` } });
    expect(res.statusCode).toBe(401);
  });

  it("a disabled or deleted user's token stops working at once", async () => {
    const user = await createUser(t, 'reader');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers })).statusCode).toBe(200);
    await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${user.id}`, headers: await adminHeaders(t), payload: { disabled: true } });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers })).statusCode).toBe(401);
    const other = await createUser(t, 'reader');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${other.id}`, headers: await adminHeaders(t) });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: other.headers })).statusCode).toBe(401);
  });

  it('a token that worked (and was remembered as verified) is refused once it expires', async () => {
    const short = await createTestApp({ auth: { jwt_expiry_seconds: 60 } });
    try {
      const headers = await adminHeaders(short);
      for (let i = 0; i < 2; i++) expect((await short.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers })).statusCode).toBe(200);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
      const late = await short.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });
      expect(late.statusCode).toBe(401);
      expect(late.json().error).toBe('Unauthorized');
    } finally {
      vi.useRealTimers();
      await short.close();
    }
  });

  it('HTTP Basic with username and password authenticates', async () => {
    const user = await createUser(t, 'reader');
    const auth = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: auth } });
    expect(res.statusCode).toBe(200);
    expect(res.json().auth_method).toBe('basic');
    const bad = `Basic ${Buffer.from(`${user.username}:wrong-password`).toString('base64')}`;
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: bad } })).statusCode).toBe(401);
  });
});

describe('Repeated login failures slow down (lock after 5 failures for that login name)', () => {
  it('locks the account name with 429 and Retry-After, even for the right password, and unlocks on time', async () => {
    const user = await createUser(t, 'reader');
    for (let i = 0; i < 5; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: user.username, password: 'wrong-password' },
      });
      expect(res.statusCode).toBe(401);
    }
    const sixth = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: user.username, password: 'wrong-password' },
    });
    expect(sixth.statusCode).toBe(401);
    const locked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: user.username, password: user.password },
    });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toBe('rate_limit_exceeded');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 2100));
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: user.username, password: user.password },
    });
    expect(ok.statusCode).toBe(200);
  });
});
