import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { DeepPartial } from '../helpers/config.js';
import type { Config } from '../../src/config/schema.js';

let t: TestApp | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await t?.close();
  t = undefined;
});

/** The app listening on a real port of 127.0.0.1. */
async function listening(server: DeepPartial<Config['server']>): Promise<number> {
  t = await createTestApp({ server });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.app.server.address() as { port: number }).port;
}

/** A raw connection; resolves once connected. `closed` resolves with the ms from connect to close. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<number>; received: () => string }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const start = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - start)));
  return { socket, closed, received: () => data };
}

/** GET /health on a fresh connection (no keep-alive agent holding sockets). */
function health(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const stillOpenAfter = (closed: Promise<number>, ms: number) =>
  Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms))]);

describe('server.headers_timeout_seconds and server.request_timeout_seconds', () => {
  it('a connection that sends half a request header is closed after the headers timeout; /health answers meanwhile', async () => {
    const port = await listening({ headers_timeout_seconds: 0.5, request_timeout_seconds: 1 });
    const halves = await Promise.all(Array.from({ length: 20 }, () => open(port)));
    for (const { socket } of halves) socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(await health(port)).toBe(200);
    const closedAfter = await Promise.all(halves.map((h) => h.closed));
    for (const ms of closedAfter) {
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(2500);
    }
    expect(halves[0]!.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(await health(port)).toBe(200);
  });

  it('a body trickled byte by byte is cut off at the request timeout', async () => {
    const port = await listening({ headers_timeout_seconds: 0.5, request_timeout_seconds: 1 });
    const { socket, closed } = await open(port);
    socket.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      const ms = await closed;
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(3000);
    } finally {
      clearInterval(trickle);
    }
  });

  it('with the defaults a slow client is not cut off within a second (20 s for headers)', async () => {
    const port = await listening({});
    const { socket, closed } = await open(port);
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(await stillOpenAfter(closed, 1000)).toBe(true);
    expect(t!.app.server.headersTimeout).toBe(20_000);
    expect(t!.app.server.requestTimeout).toBe(60_000);
    expect(t!.app.server.keepAliveTimeout).toBe(72_000);
  });
});

describe('server.max_connections_per_address', () => {
  it('connections over the cap from one address are closed at once; a freed slot is usable again', async () => {
    const port = await listening({ max_connections_per_address: 3 });
    const held = await Promise.all([open(port), open(port), open(port)]);
    // Let the server see the three before the fourth arrives.
    await new Promise((r) => setTimeout(r, 100));
    const over = await open(port);
    expect(await over.closed).toBeLessThan(1000);
    expect(over.received()).toBe('');
    await expect(health(port)).rejects.toThrow();
    for (const h of held) expect(await stillOpenAfter(h.closed, 50)).toBe(true);

    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 50));
    expect(await health(port)).toBe(200);
  });

  it('0 turns the cap off (300 connections from one address)', async () => {
    const port = await listening({ max_connections_per_address: 0 });
    await Promise.all(Array.from({ length: 300 }, () => open(port)));
    expect(await health(port)).toBe(200);
  });
});

describe('timeout configuration', () => {
  it('a headers timeout longer than the request timeout stops startup, naming the key', async () => {
    const { ConfigSchema } = await import('../../src/config/schema.js');
    const result = ConfigSchema.safeParse({ server: { headers_timeout_seconds: 30, request_timeout_seconds: 10 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['server', 'headers_timeout_seconds']);
  });
});

describe('requests the HTTP parser refuses', () => {
  /** Sends raw bytes; resolves with the status and the JSON body of the answer, once the server has closed. */
  async function raw(port: number, bytes: string): Promise<{ status: number; body: unknown }> {
    const { socket, closed, received } = await open(port);
    socket.write(bytes);
    await closed;
    const text = received();
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/content-type: application\/json/i);
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) as unknown };
  }

  it('get the API error body, never the framework own: a bad header, a smuggling attempt, headers too large', async () => {
    const port = await listening({});
    const nul = await raw(port, 'GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x00\r\n\r\n');
    expect(nul).toMatchObject({ status: 400, body: { error: 'BadRequest', message: 'The request is not valid HTTP' } });
    expect((nul.body as { details: unknown }).details).toMatchObject({ reason: expect.stringMatching(/^HPE_/) as unknown });
    const smuggled = await raw(
      port,
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expect(smuggled).toMatchObject({ status: 400, body: { error: 'BadRequest' } });
    const large = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(large).toMatchObject({
      status: 431,
      body: { error: 'RequestHeaderFieldsTooLarge', message: 'The request headers are too large' },
    });
    // The server goes on serving.
    expect(await health(port)).toBe(200);
  });

  it('a HEAD request refused by the parser gets the status and headers without a body, for any status', async () => {
    const port = await listening({});
    for (const [bytes, status] of [
      [`HEAD /api/v1/books/${'A'.repeat(20_000)}/file HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ['HEAD /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x00\r\n\r\n', 400],
    ] as const) {
      const { socket, closed, received } = await open(port);
      socket.write(bytes);
      await closed;
      const [head = '', ...rest] = received().split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head).toMatch(/content-type: application\/json/i);
      expect(rest.join('')).toBe('');
    }
    // Node's own client reads the answer as a response, not as a closed connection (it did, with a body after it).
    const answer = await new Promise<number>((resolve, reject) =>
      request({ host: '127.0.0.1', port, method: 'HEAD', path: `/api/v1/books/${'A'.repeat(20_000)}/file` }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end(),
    );
    expect(answer).toBe(431);
    expect(await health(port)).toBe(200);
  });
});
