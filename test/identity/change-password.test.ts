import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const login = (username: string, password: string) => t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
const change = (headers: Record<string, string>, payload: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/v1/auth/change-password', headers, payload });

describe('POST /auth/change-password: a person changes their own password', () => {
  it('with the right current password: 204, the new password signs in and the old one no longer does', async () => {
    const user = await createUser(t, 'reader');
    const res = await change(user.headers, { current_password: user.password, new_password: 'a brand new password' });
    expect(res.statusCode).toBe(204);
    expect((await login(user.username, 'a brand new password')).statusCode).toBe(200);
    expect((await login(user.username, user.password)).statusCode).toBe(401);
    // The session used for the change is still open.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers })).statusCode).toBe(200);
  });

  it('with a wrong current password: 400 InvalidPassword naming the field (not 401: the session is fine), nothing changes', async () => {
    const user = await createUser(t, 'reader');
    const res = await change(user.headers, { current_password: 'not my password', new_password: 'a brand new password' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'InvalidPassword', message: 'The current password is not right', details: { field: 'current_password' } });
    expect((await login(user.username, user.password)).statusCode).toBe(200);
  });

  it('refuses a new password shorter than 8 characters with 400', async () => {
    const user = await createUser(t, 'reader');
    const res = await change(user.headers, { current_password: user.password, new_password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('BadRequest');
  });

  it('wrong current passwords count towards the failed-login lock: past 5 free failures, 429 with Retry-After', async () => {
    const user = await createUser(t, 'reader');
    for (let i = 0; i < 6; i += 1) expect((await change(user.headers, { current_password: `guess ${i}`, new_password: 'a brand new password' })).statusCode).toBe(400);
    const locked = await change(user.headers, { current_password: user.password, new_password: 'a brand new password' });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toBe('rate_limit_exceeded');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an API key or Basic credentials cannot change the password (403), and anonymous callers get 401', async () => {
    const user = await createUser(t, 'reader');
    const { key } = await createApiKey(t, user.headers);
    const body = { current_password: user.password, new_password: 'a brand new password' };
    expect((await change({ 'x-api-key': key }, body)).statusCode).toBe(403);
    expect((await change(basic(user.username, user.password), body)).statusCode).toBe(403);
    expect((await change({}, body)).statusCode).toBe(401);
    expect((await login(user.username, user.password)).statusCode).toBe(200);
  });
});
