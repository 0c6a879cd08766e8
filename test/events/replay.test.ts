import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/auth.js';
import { connect, until } from '../helpers/sse-client.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { libraryDir } from '../scanner/helpers.js';

/** A client that lost its connection names the last event it got (`Last-Event-ID`) and gets what it missed. */
describe('SSE replay after a reconnection', () => {
  let t: TestApp;
  let base: string;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ rate_limit: { enabled: false } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    headers = await adminHeaders(t);
  });
  afterAll(() => t.close());

  const create = async (name: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/libraries', headers, payload: { name, path: libraryDir() } });
    expect(res.statusCode).toBe(201);
    return (res.json() as { id: string }).id;
  };

  it('every message has an id; reconnected with the last one, the missed events come first, once, in order', async () => {
    const first = connect(base, '/api/v1/events/stream', headers, ['library_created']);
    await first.opened;
    const a = await create('Replay A');
    await until(() => first.frames.length === 1);
    const lastId = first.lastEventId();
    expect(lastId).toMatch(/^[0-9a-z]+-[0-9a-f-]+-\d+$/);
    first.source.close();
    const missed = [await create('Replay B'), await create('Replay C')];
    const again = connect(base, '/api/v1/events/stream', { ...headers, 'last-event-id': lastId! }, ['library_created']);
    await again.opened;
    const d = await create('Replay D');
    await until(() => again.frames.length === 3);
    await new Promise((r) => setTimeout(r, 200));
    again.source.close();
    expect(again.frames.map((f) => f.data.library_id)).toEqual([...missed, d]);
    expect(again.frames.map((f) => f.data.library_id)).not.toContain(a);
  });

  it('an id the server does not know (too old, another run) replays nothing and the stream goes on', async () => {
    const stream = connect(base, '/api/v1/events/stream', { ...headers, 'last-event-id': 'unknown-id' }, ['library_created']);
    await stream.opened;
    const e = await create('Replay E');
    await until(() => stream.frames.length === 1);
    stream.source.close();
    expect(stream.frames[0]!.data.library_id).toBe(e);
  });
});
