import type { TestApp } from './app.js';

export type Headers = Record<string, string>;

export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery' };

const adminTokens = new WeakMap<TestApp, string>();

/** Initializes setup once per app (the first admin) and returns Bearer headers for it. */
export async function adminHeaders(t: TestApp): Promise<Headers> {
  let token = adminTokens.get(t);
  if (!token) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/setup/initialize', payload: ADMIN });
    if (res.statusCode === 201) token = res.json<{ access_token: string }>().access_token;
    else {
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: ADMIN.username, password: ADMIN.password },
      });
      if (login.statusCode !== 200) throw new Error(`admin login failed: ${login.statusCode} ${login.body}`);
      token = login.json<{ access_token: string }>().access_token;
    }
    adminTokens.set(t, token);
  }
  return { authorization: `Bearer ${token}` };
}

let counter = 0;

/** Creates a user with the role (and custom permissions) and returns its id and Bearer headers. */
export async function createUser(
  t: TestApp,
  role: 'admin' | 'maintainer' | 'reader',
  permissions: string[] = [],
): Promise<{ id: string; username: string; password: string; headers: Headers }> {
  counter += 1;
  const username = `${role}${counter}_${Math.random().toString(36).slice(2, 7)}`;
  const password = 'password-for-tests';
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: await adminHeaders(t),
    payload: { username, email: `${username}@example.org`, password, role, permissions },
  });
  if (created.statusCode !== 201) throw new Error(`create user failed: ${created.statusCode} ${created.body}`);
  const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  return {
    id: created.json<{ id: string }>().id,
    username,
    password,
    headers: { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` },
  };
}

export async function userHeaders(t: TestApp, role: 'admin' | 'maintainer' | 'reader', permissions: string[] = []): Promise<Headers> {
  return (await createUser(t, role, permissions)).headers;
}

/** Creates an API key for the given caller and returns the full key. */
export async function createApiKey(
  t: TestApp,
  headers: Headers,
  body: Record<string, unknown> = { name: 'test key' },
): Promise<{ id: string; key: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: body });
  if (res.statusCode !== 201) throw new Error(`create key failed: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string; key: string }>();
}

export const basic = (user: string, password: string): Headers => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
