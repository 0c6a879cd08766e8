import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, createUser } from '../helpers/auth.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('Settings (admin only): registry, validation, history', () => {
  it('lists every setting with its default and marks it default', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/settings', headers: await adminHeaders(t) });
    expect(res.statusCode).toBe(200);
    const reg = res.json().find((s: { key: string }) => s.key === 'registration_enabled');
    expect(reg).toMatchObject({ value: false, default: false, is_default: true });
    expect(res.json().map((s: { key: string }) => s.key)).toEqual(
      expect.arrayContaining(['komga_api_prefix', 'thumbnail_width', 'rate_limit_anonymous_burst', 'task_retention_days']),
    );
  });

  it('non-admins get 403', async () => {
    const maintainer = await createUser(t, 'maintainer');
    for (const [method, url] of [
      ['GET', '/api/v1/admin/settings'],
      ['GET', '/api/v1/admin/settings/theme'],
      ['PUT', '/api/v1/admin/settings/registration_enabled'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: maintainer.headers, payload: method === 'PUT' ? { value: true } : undefined });
      expect(res.statusCode, url).toBe(403);
    }
  });

  it('PUT validates the value, takes effect at once (registration opens) and records history; reset returns to the default', async () => {
    const admin = await adminHeaders(t);
    const bad = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/settings/registration_enabled',
      headers: admin,
      payload: { value: 'yes' },
    });
    expect(bad.statusCode).toBe(400);
    const unknown = await t.app.inject({ method: 'PUT', url: '/api/v1/admin/settings/no_such_key', headers: admin, payload: { value: 1 } });
    expect(unknown.statusCode).toBe(404);

    const closed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { username: 'reg1', email: 'reg1@example.org', password: 'password123' },
    });
    expect(closed.statusCode).toBe(403);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/settings/registration_enabled',
      headers: admin,
      payload: { value: true },
    });
    expect(put.json()).toMatchObject({ key: 'registration_enabled', value: true, is_default: false });
    const open = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { username: 'reg1', email: 'reg1@example.org', password: 'password123' },
    });
    expect(open.statusCode).toBe(201);

    const reset = await t.app.inject({ method: 'POST', url: '/api/v1/admin/settings/registration_enabled/reset', headers: admin });
    expect(reset.json()).toMatchObject({ value: false, is_default: true });

    const history = await t.app.inject({ method: 'GET', url: '/api/v1/admin/settings/registration_enabled/history', headers: admin });
    expect(history.json().total).toBe(2);
    const [latest, first] = history.json().data;
    expect(latest).toMatchObject({ old_value: true, new_value: null, changed_by: { username: 'admin' } });
    expect(first).toMatchObject({ old_value: null, new_value: true });
  });

  it('bulk update is all or nothing', async () => {
    const admin = await adminHeaders(t);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/settings/bulk',
      headers: admin,
      payload: { settings: { thumbnail_width: 300, task_retention_days: 0 } },
    });
    expect(bad.statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/admin/settings/thumbnail_width', headers: admin })).json().value).toBe(400);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/settings/bulk',
      headers: admin,
      payload: { settings: { thumbnail_width: 300, task_retention_days: 14 } },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().map((s: { value: unknown }) => s.value)).toEqual([300, 14]);
  });

  it('rate limit figures apply at runtime', async () => {
    const admin = await adminHeaders(t);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/settings/bulk',
      headers: admin,
      payload: { settings: { rate_limit_anonymous_burst: 3, rate_limit_anonymous_rps: 0.5 } },
    });
    const codes: number[] = [];
    for (let i = 0; i < 4; i += 1)
      codes.push((await t.app.inject({ method: 'GET', url: '/api/v1/setup/status', remoteAddress: '127.0.5.5' })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/settings/bulk',
      headers: admin,
      payload: { settings: { rate_limit_anonymous_burst: 10000, rate_limit_anonymous_rps: 1000 } },
    });
  });
});

describe('User preferences: registry of known keys with defaults', () => {
  it('lists defaults, sets, validates, resets, and keeps users apart', async () => {
    const alice = await createUser(t, 'reader');
    const bob = await createUser(t, 'reader');
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/user/preferences', headers: alice.headers });
    expect(list.json().find((p: { key: string }) => p.key === 'reading_direction')).toMatchObject({ value: 'ltr', is_default: true });

    const set = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/user/preferences/reading_direction',
      headers: alice.headers,
      payload: { value: 'rtl' },
    });
    expect(set.json()).toMatchObject({ key: 'reading_direction', value: 'rtl', is_default: false });
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/v1/user/preferences/reading_direction',
          headers: alice.headers,
          payload: { value: 'diagonal' },
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/v1/user/preferences/favourite_colour',
          headers: alice.headers,
          payload: { value: 'blue' },
        })
      ).statusCode,
    ).toBe(400);

    const bobs = await t.app.inject({ method: 'GET', url: '/api/v1/user/preferences', headers: bob.headers });
    expect(bobs.json().find((p: { key: string }) => p.key === 'reading_direction').value).toBe('ltr');

    const reset = await t.app.inject({ method: 'DELETE', url: '/api/v1/user/preferences/reading_direction', headers: alice.headers });
    expect(reset.json()).toMatchObject({ value: 'ltr', is_default: true });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/user/preferences' })).statusCode).toBe(401);
  });
});
