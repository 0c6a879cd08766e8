import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, createApiKey, createUser } from '../helpers/auth.js';

describe('POST /api/v1/auth/change-password (your own password, from the account page)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const login = (password: string) =>
    t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: ADMIN.username, password } });

  it('changes the password when the current one is given: the old one stops working, the new one works, and every session of the account ends', async () => {
    const reader = await createUser(t, 'reader');
    const loginAs = (password: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: reader.username, password } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      headers: reader.headers,
      payload: { current_password: reader.password, new_password: 'a brand new secret' },
    });
    expect(res.statusCode).toBe(204);
    expect((await loginAs(reader.password)).statusCode).toBe(401);
    expect((await loginAs('a brand new secret')).statusCode).toBe(200);
    // The security stamp changed: the token used for the change is refused too.
    const old = await t.app.inject({ method: 'GET', url: '/api/v1/libraries', headers: reader.headers });
    expect(old.statusCode).toBe(401);
  });

  it('counts wrong current passwords toward the account lockout (429 after the free failures)', async () => {
    const reader = await createUser(t, 'reader');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/change-password',
        headers: reader.headers,
        payload: { current_password: `wrong ${i}`, new_password: 'whatever long enough' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 5).every((s) => s === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('refuses a wrong current password with 400 naming the field, and keeps the password', async () => {
    const headers = await adminHeaders(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      headers,
      payload: { current_password: 'not it', new_password: 'whatever long enough' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'BadRequest',
      message: 'The current password is not correct',
      details: { field: 'current_password' },
    });
    expect((await login(ADMIN.password)).statusCode).toBe(200);
  });

  it('refuses a new password that is too short (400) and any caller without a session (401)', async () => {
    const headers = await adminHeaders(t);
    const short = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      headers,
      payload: { current_password: ADMIN.password, new_password: 'short' },
    });
    expect(short.statusCode).toBe(400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      payload: { current_password: ADMIN.password, new_password: 'whatever long enough' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('is not allowed with an API key (403), even with the right current password', async () => {
    const { key } = await createApiKey(t, await adminHeaders(t));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/change-password',
      headers: { 'x-api-key': key },
      payload: { current_password: ADMIN.password, new_password: 'whatever long enough' },
    });
    expect(res.statusCode).toBe(403);
    expect((await login(ADMIN.password)).statusCode).toBe(200);
  });
});
