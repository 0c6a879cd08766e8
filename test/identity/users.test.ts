import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, createUser } from '../helpers/auth.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const me = async (headers: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers })).json();

describe('Roles and permissions', () => {
  /** The spec: "a maintainer role holds 15 permissions and lacks admin-only ones"; a reader holds the first 9 of them. */
  const READER = [
    'libraries-read',
    'series-read',
    'books-read',
    'pages-read',
    'progress-read',
    'progress-write',
    'api-keys-read',
    'api-keys-write',
    'api-keys-delete',
  ];
  const MAINTAINER = [
    'libraries-read',
    'libraries-write',
    'series-read',
    'series-write',
    'books-read',
    'books-write',
    'pages-read',
    'progress-read',
    'progress-write',
    'api-keys-read',
    'api-keys-write',
    'api-keys-delete',
    'tasks-read',
    'tasks-write',
    'system-health',
  ];
  const admin = async () => adminHeaders(t);
  const userView = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/users/${id}`, headers: await admin() })).json<{ effective_permissions: string[] }>();
  /** A key created without `permissions` (rule 4: all of the creator's), as GET /auth/me sees it. */
  const keyPermissions = async (headers: Record<string, string>) => {
    const key = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: { name: 'everything' } });
    expect(key.statusCode).toBe(201);
    return (await me({ 'x-api-key': key.json<{ key: string }>().key })).permissions as string[];
  };

  it('a reader holds exactly the 9 reader permissions: by /auth/me, the users API and a key created without a list', async () => {
    const reader = await createUser(t, 'reader');
    expect((await me(reader.headers)).permissions).toEqual(READER);
    expect((await userView(reader.id)).effective_permissions).toEqual(READER);
    expect(await keyPermissions(reader.headers)).toEqual(READER);
  });

  it('a maintainer holds exactly 15 permissions and lacks the admin-only ones, the list permissions and kobo-sync', async () => {
    const maintainer = await createUser(t, 'maintainer');
    const perms: string[] = (await me(maintainer.headers)).permissions;
    expect(perms).toHaveLength(15);
    expect(perms).toEqual(MAINTAINER);
    expect((await userView(maintainer.id)).effective_permissions).toEqual(MAINTAINER);
    expect(await keyPermissions(maintainer.headers)).toEqual(MAINTAINER);
    for (const adminOnly of ['users-read', 'libraries-delete', 'system-admin', 'plugins-manage']) expect(perms).not.toContain(adminOnly);
  });

  it('an administrator grants the list permissions and kobo-sync as custom permissions; a key gets only what its creator holds', async () => {
    const granted = ['collections-write', 'collections-delete', 'read-lists-write', 'kobo-sync'];
    const reader = await createUser(t, 'reader', granted);
    expect((await me(reader.headers)).permissions).toEqual(expect.arrayContaining([...READER, ...granted]));
    expect((await userView(reader.id)).effective_permissions).toHaveLength(READER.length + granted.length);
    const plain = await createUser(t, 'reader');
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: plain.headers,
      payload: { name: 'Kobo', permissions: ['kobo-sync', 'books-read'] },
    });
    expect(refused.statusCode).toBe(403);
  });

  it('custom permissions add to the role; admin-only ones stay with admins; colon form accepted; unknown names 400', async () => {
    const user = await createUser(t, 'reader', ['tasks:read', 'users-read']);
    const perms: string[] = (await me(user.headers)).permissions;
    expect(perms).toContain('tasks-read');
    expect(perms).not.toContain('users-read');
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: await adminHeaders(t),
      payload: { username: 'zz', email: 'zz@example.org', password: 'password123', permissions: ['fly-planes'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().details)).toContain('fly-planes');
  });

  it('403 Forbidden names the missing permission', async () => {
    const reader = await createUser(t, 'reader');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: reader.headers });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'Forbidden', details: { required_permission: 'users-read' } });
    expect(res.json().message).toContain('users-read');
  });
});

describe('Users (admin only)', () => {
  it('lists, creates, reads, updates (PUT and PATCH) and deletes users', async () => {
    const admin = await adminHeaders(t);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin,
      payload: { username: 'carol', email: 'carol@example.org', password: 'carol-password', role: 'maintainer' },
    });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ username: 'carol', email: 'carol@example.org', role: 'maintainer', disabled: false });
    expect(user).not.toHaveProperty('password');
    expect(user).not.toHaveProperty('password_hash');

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/users?pageSize=2', headers: admin });
    expect(list.json()).toMatchObject({ page: 1, pageSize: 2 });
    expect(list.json().total).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(list.json())).not.toMatch(/argon2/);

    expect((await t.app.inject({ method: 'GET', url: `/api/v1/users/${user.id}`, headers: admin })).json().username).toBe('carol');
    const put = await t.app.inject({ method: 'PUT', url: `/api/v1/users/${user.id}`, headers: admin, payload: { role: 'reader' } });
    expect(put.json().role).toBe('reader');
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: admin,
      payload: { email: 'carol2@example.org', password: 'another-password' },
    });
    expect(patch.json().email).toBe('carol2@example.org');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'carol', password: 'another-password' },
    });
    expect(login.statusCode).toBe(200);

    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: admin })).statusCode).toBe(204);
    const gone = await t.app.inject({ method: 'GET', url: `/api/v1/users/${user.id}`, headers: admin });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('NotFound');
  });

  it('username and e-mail are unique (409), case-insensitively', async () => {
    const admin = await adminHeaders(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin,
      payload: { username: 'ADMIN', email: 'x@example.org', password: 'password123' },
    });
    expect(res.statusCode).toBe(409);
    const mail = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin,
      payload: { username: 'fresh', email: 'Admin@Example.org', password: 'password123' },
    });
    expect(mail.statusCode).toBe(409);
  });

  it('the user name "api" (in any case) is refused: Basic authentication with it carries an API key', async () => {
    const admin = await adminHeaders(t);
    const create = (username: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: admin,
        payload: { username, email: `${username}@example.org`, password: 'password123' },
      });
    for (const username of ['api', 'API']) {
      const res = await create(username);
      expect(res.statusCode, username).toBe(400);
      expect(res.json<{ message: string }>().message, username).toContain('reserved for API keys');
    }
    expect((await create('apiary')).statusCode).toBe(201);
  });

  it('passwords shorter than 8 characters are rejected', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: await adminHeaders(t),
      payload: { username: 'shorty', email: 's@example.org', password: 'seven77' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('the last admin cannot be deleted, demoted or disabled (409); with a second admin it can', async () => {
    const admin = await adminHeaders(t);
    const self = (await me(admin)).id as string;
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${self}`, headers: admin })).statusCode).toBe(409);
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${self}`, headers: admin, payload: { role: 'reader' } })).statusCode,
    ).toBe(409);
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${self}`, headers: admin, payload: { disabled: true } })).statusCode,
    ).toBe(409);
    const second = await createUser(t, 'admin');
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/api/v1/users/${second.id}`, headers: admin, payload: { role: 'maintainer' } }))
        .statusCode,
    ).toBe(200);
  });

  it('an unknown or malformed user id is 404 or 400, never 500', async () => {
    const admin = await adminHeaders(t);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users/0190d5e8-7b1c-7cc3-8a1e-2f4d5e6f7a8b', headers: admin })).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/users/../../etc', headers: admin })).statusCode).toBeLessThan(500);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/users/xyz', headers: admin })).statusCode).toBe(400);
  });
});
