import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../helpers/auth.js';
import { connect, until, type Frame } from '../helpers/sse-client.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

// An event stream outlives the request that opened it: what it carries is judged with its caller as they are when
// each event happens, and a caller refused since it opened gets the stream closed (operations/event-stream/routes.ts).

let t: CatalogTestApp;
let base: string;
let kept: { id: string };
let other: { id: string };

beforeAll(async () => {
  t = await createCatalogApp({ events: { keepalive_seconds: 0.2 } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const libraries = [];
  for (const name of ['Kept', 'Other']) {
    const dir = libraryDir();
    await makeCbz(dir, `${name} 001.cbz`, { pages: 1 });
    const library = await createLibrary(t, dir);
    await scan(t, library.id);
    libraries.push(library);
  }
  [kept, other] = libraries as [{ id: string }, { id: string }];
});
afterAll(() => t.close());

let renames = 0;
const touch = async (library: { id: string }) =>
  expect((await api(t, 'PATCH', `/api/v1/libraries/${library.id}`, { name: `Renamed ${(renames += 1)}` })).status).toBe(200);
const heardOf = (frames: Frame[], library: { id: string }) => frames.filter((f) => f.data.library_id === library.id).length;

describe('Entity event streams after the caller changes', () => {
  it('stops carrying a library whose access was taken away, on the next event', async () => {
    const reader = await createUser(t, 'reader');
    const stream = connect(base, '/api/v1/events/stream', reader.headers, ['library_updated']);
    await stream.opened;
    await touch(other);
    await until(() => heardOf(stream.frames, other) === 1);
    const change = await api(t, 'PATCH', `/api/v1/users/${reader.id}`, { library_access: { all: false, library_ids: [kept.id] } });
    expect(change.status).toBe(200);
    await touch(other);
    await touch(kept);
    // Events reach a stream in the order they happened: once the second is in, the first was judged.
    await until(() => heardOf(stream.frames, kept) === 1);
    expect(heardOf(stream.frames, other)).toBe(1);
    stream.source.close();
  });

  const refusals: Array<[string, (user: { id: string; headers: Record<string, string> }, keyId: string) => Promise<number>]> = [
    ['the account is disabled', async (user) => (await api(t, 'PATCH', `/api/v1/users/${user.id}`, { disabled: true })).status],
    [
      'the token is logged out',
      async (user) => (await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: user.headers })).statusCode,
    ],
    [
      'the API key is deleted',
      async (user, keyId) => (await t.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${keyId}`, headers: user.headers })).statusCode,
    ],
  ];
  for (const [what, refuse] of refusals) {
    it(`is closed, with nothing more sent, once ${what}`, async () => {
      const reader = await createUser(t, 'reader');
      const key = what.includes('API key') ? await createApiKey(t, reader.headers) : undefined;
      const headers = key ? { 'x-api-key': key.key } : reader.headers;
      const stream = connect(base, '/api/v1/events/stream', headers, ['library_updated']);
      await stream.opened;
      await touch(kept);
      await until(() => heardOf(stream.frames, kept) === 1);
      expect(await refuse(reader, key?.id ?? '')).toBeLessThan(300);
      await touch(kept);
      await until(() => stream.state.errors > 0);
      expect(heardOf(stream.frames, kept)).toBe(1);
      stream.source.close();
    });
  }
});

describe('Task progress streams', () => {
  it("carry only the tasks of the caller's libraries, in the spec's fields", async () => {
    const maintainer = await createUser(t, 'maintainer');
    expect(
      (await api(t, 'PATCH', `/api/v1/users/${maintainer.id}`, { library_access: { all: false, library_ids: [kept.id] } })).status,
    ).toBe(200);
    const stream = connect(base, '/api/v1/tasks/stream', maintainer.headers, ['task_progress']);
    await stream.opened;
    const hidden = await scan(t, other.id);
    const seen = await scan(t, kept.id);
    await until(() => stream.frames.some((f) => f.data.task_id === seen.id && f.data.status === 'completed'));
    expect(stream.frames.filter((f) => f.data.task_id === hidden.id)).toEqual([]);
    for (const frame of stream.frames) expect(Object.keys(frame.data).sort()).toEqual(['progress', 'status', 'task_id', 'task_type']);
    stream.source.close();
  });

  it('is closed once the caller no longer holds tasks-read', async () => {
    const maintainer = await createUser(t, 'maintainer');
    const stream = connect(base, '/api/v1/tasks/stream', maintainer.headers, ['task_progress']);
    await stream.opened;
    expect((await api(t, 'PATCH', `/api/v1/users/${maintainer.id}`, { role: 'reader' })).status).toBe(200);
    const after = await scan(t, kept.id);
    await until(() => stream.state.errors > 0);
    expect(stream.frames.filter((f) => f.data.task_id === after.id)).toEqual([]);
    stream.source.close();
  });
});
