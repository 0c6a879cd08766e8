import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { basic, createUser } from '../helpers/auth.js';
import { enableKomga } from '../komga/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(enableKomga);
});
afterAll(() => t.close());

const login = (username: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
const get = (url: string, username: string, password: string) => t.app.inject({ method: 'GET', url, headers: basic(username, password) });

/** Five failures are free; the sixth locks the account for 2 s. */
const FAILURES_TO_LOCK = 6;

describe('One lockout per account, whichever route the password is sent to', () => {
  it('wrong Basic passwords (native API, OPDS, Komga API) count toward the lock that /auth/login sees', async () => {
    const user = await createUser(t, 'reader');
    const urls = ['/api/v1/auth/me', '/opds/v2', '/komga/api/v1/libraries'];
    for (let i = 0; i < FAILURES_TO_LOCK; i += 1)
      expect((await get(urls[i % urls.length]!, user.username, 'wrong-password')).statusCode).toBe(401);
    const locked = await login(user.username, user.password);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error).toBe('rate_limit_exceeded');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it("the lockout 429 body carries retry_after beside error/message/details, as the rate limiter's does, equal to Retry-After", async () => {
    const user = await createUser(t, 'reader');
    for (let i = 0; i < FAILURES_TO_LOCK; i += 1) expect((await login(user.username, 'wrong-password')).statusCode).toBe(401);
    for (const res of [await login(user.username, user.password), await get('/opds/v2', user.username, user.password)]) {
      expect(res.statusCode).toBe(429);
      const body = res.json();
      expect(body).toMatchObject({ error: 'rate_limit_exceeded', details: null });
      expect(typeof body.message).toBe('string');
      expect(body.retry_after).toBe(Number(res.headers['retry-after']));
      expect(body.retry_after).toBeGreaterThanOrEqual(1);
    }
  });

  it('while the account is locked, the right Basic password on OPDS answers 429 with Retry-After, not 200 (even when verified before)', async () => {
    const user = await createUser(t, 'reader');
    // A reader app already paging with the right password (its check is remembered for a while).
    expect((await get('/opds/v2', user.username, user.password)).statusCode).toBe(200);
    for (let i = 0; i < FAILURES_TO_LOCK; i += 1) expect((await login(user.username, 'wrong-password')).statusCode).toBe(401);
    for (const url of ['/opds/v2', '/opds/v1.2/catalog', '/komga/api/v1/libraries']) {
      const res = await get(url, user.username, user.password);
      expect(res.statusCode, url).toBe(429);
      expect(res.json().error).toBe('rate_limit_exceeded');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    await new Promise((r) => setTimeout(r, 2100));
    expect((await get('/opds/v2', user.username, user.password)).statusCode).toBe(200);
  });

  it("the e-mail address shares the username's lock: the lock belongs to the account, not to the name typed", async () => {
    const user = await createUser(t, 'reader');
    const email = `${user.username}@example.org`;
    for (let i = 0; i < FAILURES_TO_LOCK / 2; i += 1) {
      expect((await login(user.username, 'wrong-password')).statusCode).toBe(401);
      expect((await get('/opds/v2', email.toUpperCase(), 'wrong-password')).statusCode).toBe(401);
    }
    expect((await login(user.username, user.password)).statusCode).toBe(429);
    expect((await login(email, user.password)).statusCode).toBe(429);
    expect((await get('/opds/v2', email, user.password)).statusCode).toBe(429);
  });

  it('a burst of parallel guesses gets no more free attempts than guesses one by one', async () => {
    const user = await createUser(t, 'reader');
    const codes = await Promise.all(
      Array.from({ length: 20 }, () => get('/opds/v2', user.username, 'wrong-password').then((r) => r.statusCode)),
    );
    expect(codes.filter((c) => c === 401)).toHaveLength(FAILURES_TO_LOCK);
    expect(codes.filter((c) => c === 429)).toHaveLength(20 - FAILURES_TO_LOCK);
  });

  it('another account is not locked by these failures, and a success clears the count', async () => {
    const [victim, other] = [await createUser(t, 'reader'), await createUser(t, 'reader')];
    for (let i = 0; i < FAILURES_TO_LOCK; i += 1) await get('/opds/v2', victim.username, 'wrong-password');
    expect((await get('/opds/v2', other.username, other.password)).statusCode).toBe(200);
    for (let i = 0; i < FAILURES_TO_LOCK - 1; i += 1) expect((await login(other.username, 'wrong-password')).statusCode).toBe(401);
    expect((await login(other.username, other.password)).statusCode).toBe(200);
    for (let i = 0; i < FAILURES_TO_LOCK - 1; i += 1) expect((await login(other.username, 'wrong-password')).statusCode).toBe(401);
    expect((await login(other.username, other.password)).statusCode).toBe(200);
  });
});
