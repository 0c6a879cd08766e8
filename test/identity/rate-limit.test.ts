import { afterEach, describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/http/rate-limit.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, basic, createUser } from '../helpers/auth.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const limited = () =>
  createTestApp({
    rate_limit: { enabled: true, anonymous: { requests_per_second: 1, burst: 5 }, authenticated: { requests_per_second: 1, burst: 8 } },
  });

describe('Rate limiting: token bucket, anonymous by IP, authenticated by user', () => {
  it('every response carries X-RateLimit-Limit (burst), X-RateLimit-Remaining and X-RateLimit-Reset', async () => {
    t = await limited();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.2' });
    expect(res.headers['x-ratelimit-limit']).toBe('5');
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
    expect(res.headers['x-ratelimit-reset']).toBe('0');
    const unauth = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', remoteAddress: '127.0.0.2' });
    expect(unauth.statusCode).toBe(401);
    expect(unauth.headers['x-ratelimit-remaining']).toBe('3');
  });

  it('burst exhaustion answers 429 with Retry-After and the exact body', async () => {
    t = await limited();
    for (let i = 0; i < 5; i += 1)
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.3' })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.3' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe('1');
    expect(res.json()).toEqual({
      error: 'rate_limit_exceeded',
      message: 'Rate limit exceeded: retry in 1 second',
      details: null,
      retry_after: 1,
    });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.3' })).statusCode).toBe(200);
  });

  it('/health is exempt (authenticated streams under /api/v1/events are too: test/events/sse.test.ts)', async () => {
    t = await limited();
    for (let i = 0; i < 12; i += 1) {
      const health = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '127.0.0.4' });
      expect(health.statusCode).toBe(200);
      expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('requests that fail authentication are never exempt: wrong Basic passwords on /api/v1/events/stream reach 429', async () => {
    // Refilling one token in 100 s: argon2 under load must not refill the bucket between guesses.
    t = await createTestApp({ rate_limit: { enabled: true, anonymous: { requests_per_second: 0.01, burst: 5 } } });
    await adminHeaders(t);
    const codes: number[] = [];
    // A different account name per guess, as a password sprayer would: the per-account lock never applies.
    for (let i = 0; i < 7; i += 1) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/events/stream',
        headers: basic(`guess${i}`, 'wrong-password'),
        remoteAddress: '127.0.0.40',
      });
      codes.push(res.statusCode);
    }
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // A request without credentials is refused too, so it counts as well; another address is unaffected.
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/events/stream', remoteAddress: '127.0.0.41' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('once an address has spent its bucket on failed guesses, the right password answers 429 as well (no oracle); other addresses are served', async () => {
    t = await createTestApp({ rate_limit: { enabled: true, anonymous: { requests_per_second: 0.01, burst: 5 } } });
    const user = await createUser(t, 'reader');
    for (let i = 0; i < 5; i += 1) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(`guess${i}`, 'wrong-password'), remoteAddress: '127.0.0.50' }))
          .statusCode,
      ).toBe(401);
    }
    for (const url of ['/opds/v2', '/api/v1/auth/me', '/api/v1/events/stream']) {
      const right = await t.app.inject({ method: 'GET', url, headers: basic(user.username, user.password), remoteAddress: '127.0.0.50' });
      expect(right.statusCode, url).toBe(429);
      expect(right.json().error).toBe('rate_limit_exceeded');
    }
    // Tokens are not guessable: a JWT from the same address still works.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers, remoteAddress: '127.0.0.50' })).statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(user.username, user.password), remoteAddress: '127.0.0.51' }))
        .statusCode,
    ).toBe(200);
  });

  it('an address whose anonymous bucket is spent by plain traffic (NAT, proxy) still has its right Basic passwords checked and served', async () => {
    t = await createTestApp({ rate_limit: { enabled: true, anonymous: { requests_per_second: 0.01, burst: 5 } } });
    const user = await createUser(t, 'reader');
    for (let i = 0; i < 6; i += 1) await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.60' });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.60' })).statusCode).toBe(429);
    for (const url of ['/opds/v2', '/api/v1/auth/me']) {
      expect(
        (await t.app.inject({ method: 'GET', url, headers: basic(user.username, user.password), remoteAddress: '127.0.0.60' })).statusCode,
        url,
      ).toBe(200);
    }
  });

  it('a Basic pair verified before keeps working from an address whose failed-auth counter others have spent', async () => {
    t = await createTestApp({ rate_limit: { enabled: true, anonymous: { requests_per_second: 0.01, burst: 5 } } });
    const user = await createUser(t, 'reader');
    expect(
      (await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(user.username, user.password), remoteAddress: '127.0.0.70' }))
        .statusCode,
    ).toBe(200);
    for (let i = 0; i < 6; i += 1)
      await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(`guess${i}`, 'wrong-password'), remoteAddress: '127.0.0.70' });
    expect(
      (await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(user.username, user.password), remoteAddress: '127.0.0.70' }))
        .statusCode,
    ).toBe(200);
    // A pair never verified is still not checked from there.
    const other = await createUser(t, 'reader');
    expect(
      (await t.app.inject({ method: 'GET', url: '/opds/v2', headers: basic(other.username, other.password), remoteAddress: '127.0.0.70' }))
        .statusCode,
    ).toBe(429);
  });

  it('anonymous buckets are per IP; authenticated buckets are per user, whatever the address', async () => {
    t = await limited();
    const admin = await adminHeaders(t);
    const reader = await createUser(t, 'reader');
    for (let i = 0; i < 5; i += 1) await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.5' });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.5' })).statusCode).toBe(429);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.0.6' })).statusCode).toBe(200);
    // the exhausted IP can still serve an authenticated user, whose bucket is their own
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: reader.headers, remoteAddress: '127.0.0.5' });
    expect(me.statusCode).toBe(200);
    expect(me.headers['x-ratelimit-limit']).toBe('8');
    for (let i = 0; i < 7; i += 1)
      await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: reader.headers, remoteAddress: `127.0.1.${i}` });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: reader.headers, remoteAddress: '127.0.2.1' })).statusCode,
    ).toBe(429);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: admin, remoteAddress: '127.0.2.1' })).statusCode).toBe(
      200,
    );
  });

  it('X-Forwarded-For is believed only with server.trust_proxy', async () => {
    t = await createTestApp({ server: { trust_proxy: true }, rate_limit: { anonymous: { requests_per_second: 1, burst: 2 } } });
    for (let i = 0; i < 2; i += 1)
      await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { 'x-forwarded-for': '127.0.3.1' } });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { 'x-forwarded-for': '127.0.3.1' } })).statusCode,
    ).toBe(429);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { 'x-forwarded-for': '127.0.3.2' } })).statusCode,
    ).toBe(200);
    await t.close();
    t = await createTestApp({ rate_limit: { anonymous: { requests_per_second: 1, burst: 2 } } });
    for (let i = 0; i < 2; i += 1)
      await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { 'x-forwarded-for': `127.0.4.${i}` } });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', headers: { 'x-forwarded-for': '127.0.4.9' } })).statusCode,
    ).toBe(429);
  });

  it('idle buckets are evicted so memory stays bounded under many IPs', () => {
    const buckets = new TokenBuckets(1000);
    const limits = { rate: 10, burst: 50 };
    for (let i = 0; i < 5000; i += 1) buckets.take(`ip:${i}`, limits, 0);
    expect(buckets.size).toBeLessThanOrEqual(1000);
    buckets.sweep(120_000);
    expect(buckets.size).toBe(0);
  });
});

describe('Brute force: 200 wrong logins', () => {
  it('do not lock out other users and do not slow the server for them', async () => {
    t = await createTestApp({ rate_limit: { anonymous: { requests_per_second: 10, burst: 50 } } });
    await adminHeaders(t);
    const victim = await createUser(t, 'reader');
    const other = await createUser(t, 'reader');
    const attack = async () => {
      const codes: number[] = [];
      for (let batch = 0; batch < 20; batch += 1) {
        const results = await Promise.all(
          Array.from({ length: 10 }, () =>
            t!.app.inject({
              method: 'POST',
              url: '/api/v1/auth/login',
              remoteAddress: '127.0.9.9',
              payload: { username: victim.username, password: 'guess-guess' },
            }),
          ),
        );
        codes.push(...results.map((r) => r.statusCode));
      }
      return codes;
    };
    const legit = async () => {
      const times: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const start = performance.now();
        const res = await t!.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          remoteAddress: '127.0.8.8',
          payload: { username: other.username, password: other.password },
        });
        times.push(performance.now() - start);
        expect(res.statusCode).toBe(200);
      }
      return times;
    };
    const [codes, times] = await Promise.all([attack(), legit()]);
    expect(codes).toHaveLength(200);
    expect(codes.every((c) => c === 401 || c === 429)).toBe(true);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(100);
    expect(Math.max(...times)).toBeLessThan(2000);
    // the victim, from their own address, is locked only for a short, growing interval, never for good
    const victimLogin = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      remoteAddress: '127.0.7.7',
      payload: { username: victim.username, password: victim.password },
    });
    expect([200, 429]).toContain(victimLogin.statusCode);
  });
});
