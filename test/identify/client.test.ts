import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderClient, ProviderError } from '../../src/catalog/identify/client.js';
import { json, replayServer, type ReplayServer } from '../helpers/replay-server.js';

/** Real recorded AniList answers (test/fixtures/providers/SOURCES.md): a 429 as AniList sent it, and a Media. */
const fixture = (name: string) => readFileSync(path.resolve(import.meta.dirname, '../fixtures/providers/anilist', name), 'utf8');
const TOO_MANY = fixture('error-429-rate-limit.json');
const MEDIA = fixture('media-99426.json');

let servers: ReplayServer[] = [];
/** What the last replay server was sent. */
let seen: IncomingMessage[] = [];

/** A replay server on loopback answering the given answers in turn; its address. */
async function replay(...answers: Parameters<typeof replayServer>): Promise<string> {
  const server = await replayServer(...answers);
  servers.push(server);
  seen = server.seen;
  return server.url;
}
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  seen = [];
});

function client(baseUrl: string, extra: Partial<ConstructorParameters<typeof ProviderClient>[0]> = {}) {
  const waits: number[] = [];
  const c = new ProviderClient({
    name: 'AniList',
    baseUrl,
    userAgent: 'Colophon/0.1 (+https://example.org/colophon)',
    limits: { rate: 100, burst: 100 },
    sleep: async (ms) => void waits.push(ms),
    ...extra,
  });
  return { c, waits };
}

describe("the providers' client", () => {
  it('waits exactly what a 429 asks (Retry-After: 60, as AniList sent it), then gets the answer', async () => {
    const base = await replay(json(429, TOO_MANY, { 'retry-after': '60' }), json(200, MEDIA));
    const { c, waits } = client(base);
    const answer = await c.json('/', { body: { query: '{ Media(id: 99426) { id } }' } });
    expect(answer).toEqual(JSON.parse(MEDIA));
    expect(waits).toEqual([60_000]);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(seen[0]!.headers['user-agent']).toBe('Colophon/0.1 (+https://example.org/colophon)');
  });

  it('a wait longer than it will hold is "rate limited until", at once, without asking again', async () => {
    const base = await replay(json(429, TOO_MANY, { 'retry-after': '3600' }));
    const now = Date.parse('2026-12-02T13:00:00Z');
    const { c, waits } = client(base, { maxRetryAfterMs: 120_000, now: () => now });
    const err = await c.json('/', { body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAt: new Date('2026-12-02T14:00:00Z') });
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('a failing provider is asked again after growing waits, then said to fail in words', async () => {
    const base = await replay(json(503, '{}'), json(502, '{}'), json(200, MEDIA));
    const { c, waits } = client(base, { backoffMs: 500 });
    expect(await c.json('/media')).toEqual(JSON.parse(MEDIA));
    expect(waits).toEqual([500, 1000]);

    const down = await replay(json(500, '{}'));
    const { c: c2, waits: w2 } = client(down, { backoffMs: 100, retries: 2 });
    await expect(c2.json('/')).rejects.toMatchObject({
      kind: 'server_error',
      status: 500,
      message: 'AniList: answers with an error (HTTP 500)',
    });
    expect(w2).toEqual([100, 200]);
  });

  it('a key refused, a request refused, and an answer that is not JSON are told apart; the key is in no message', async () => {
    const base = await replay(json(401, '{}'), json(404, fixture('error-404-media-id-0.json')), (_req, res) =>
      res.writeHead(200).end('<html>'),
    );
    const { c } = client(base, { headers: { authorization: 'Bearer s3cret-token' } });
    const refused = (await c.json('/').catch((e: unknown) => e)) as ProviderError;
    expect(refused).toMatchObject({ kind: 'refused', status: 401, message: 'AniList: refuses the key or token (HTTP 401)' });
    expect(seen[0]!.headers.authorization).toBe('Bearer s3cret-token');
    await expect(c.json('/')).rejects.toMatchObject({ kind: 'refused', status: 404 });
    const bad = (await c.json('/').catch((e: unknown) => e)) as ProviderError;
    expect(bad).toMatchObject({ kind: 'bad_answer' });
    for (const e of [refused, bad]) expect(JSON.stringify({ ...e, message: e.message })).not.toContain('s3cret');
  });

  it('no answer in time is a timeout; a closed port is unreachable', async () => {
    const base = await replay(() => undefined);
    await expect(client(base, { timeoutMs: 200, retries: 0 }).c.json('/')).rejects.toMatchObject({ kind: 'timeout' });
    await servers[0]!.close();
    await expect(client(base, { retries: 1 }).c.json('/')).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('keeps to the documented rate: the call past the burst waits for a token', async () => {
    const base = await replay(json(200, MEDIA));
    let now = 0;
    const waits: number[] = [];
    const c = new ProviderClient({
      name: 'MangaDex',
      baseUrl: base,
      userAgent: 'Colophon',
      limits: { rate: 5, burst: 2 },
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });
    for (let i = 0; i < 3; i++) await c.json('/manga', { query: { title: 'One Punch Man', 'includes[]': ['cover_art', 'author'] } });
    expect(waits).toEqual([200]);
    expect(seen[0]!.url).toBe('/manga?title=One+Punch+Man&includes%5B%5D=cover_art&includes%5B%5D=author');
  });
});
