import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { userHeaders } from '../helpers/auth.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const lanAddresses = () =>
  Object.values(os.networkInterfaces())
    .flatMap((a) => a ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);

/**
 * GET /me/server-addresses over a real socket, the server listening on `host` and asked on 127.0.0.1 (the port in
 * the LAN addresses is the one the request came in on).
 */
async function addresses(app: TestApp, headers: Record<string, string>, host = '0.0.0.0') {
  const port = new URL(await app.app.listen({ host, port: 0 })).port;
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/me/server-addresses`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, port };
}

describe('GET /api/v1/me/server-addresses: where other devices reach the server', () => {
  it('opened on the server itself (127.0.0.1), without public_url: says it is loopback and offers the LAN addresses', async () => {
    t = await createTestApp();
    const { status, body, port } = await addresses(t, await userHeaders(t, 'reader'));
    expect(status).toBe(200);
    expect(body).toEqual({
      base_url: `http://127.0.0.1:${port}`,
      public_url_set: false,
      loopback: true,
      lan_urls: lanAddresses().map((a) => `http://${a}:${port}`),
    });
  });

  it('listening on 127.0.0.1 only: no LAN address is offered (nothing else reaches it)', async () => {
    t = await createTestApp();
    const { body, port } = await addresses(t, await userHeaders(t, 'reader'), '127.0.0.1');
    expect(body).toEqual({ base_url: `http://127.0.0.1:${port}`, public_url_set: false, loopback: true, lan_urls: [] });
  });

  it('with server.public_url: that is the address to give, not loopback', async () => {
    t = await createTestApp({ server: { public_url: 'https://books.example.net/colophon/' } });
    const { body } = await addresses(t, await userHeaders(t, 'reader'));
    expect(body).toMatchObject({ base_url: 'https://books.example.net/colophon', public_url_set: true, loopback: false });
  });

  it('needs a signed-in user', async () => {
    t = await createTestApp();
    const { status, body } = await addresses(t, {});
    expect(status).toBe(401);
    expect(body).toMatchObject({ error: 'Unauthorized' });
  });
});
