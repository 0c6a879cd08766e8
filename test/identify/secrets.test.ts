/**
 * A provider's key is never shown (issue 51): not in any answer, not in the log at its most talkative, not in the
 * stored problem, not in the database in the clear — while the provider refuses it, fails, and answers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/http/types.js';
import { createTestDatabase } from '../helpers/app.js';
import { ADMIN } from '../helpers/auth.js';
import { replayServer, routed, type ReplayServer } from '../helpers/replay-server.js';

const fixture = (name: string) => readFileSync(path.resolve(import.meta.dirname, '../fixtures/providers', name), 'utf8');

const KEY = 'metron-user:pass-9f8e7d6c5b4a-never-shown';
const logged: string[] = [];
let app: App;
let replay: ReplayServer;
let drop: () => Promise<void>;
let headers: Record<string, string>;
const answers: string[] = [];

beforeAll(async () => {
  // Metron (Basic auth) refuses the key, then fails (statuses only: no body is made up); ComicVine answers its recording.
  let metronCalls = 0;
  replay = await replayServer(
    routed({
      metron: (_url, _req, res) => res.writeHead((metronCalls += 1) === 1 ? 401 : 500).end(),
      comicvine: (_url, _req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(fixture('comicvine/search-volume-green-lantern-limit20-fieldlist.json')),
    }),
  );
  const db = await createTestDatabase({
    rate_limit: { enabled: false },
    logging: { level: 'trace', access_log: true },
    metadata: { providers: { metron: { base_url: `${replay.url}metron` }, comicvine: { base_url: `${replay.url}comicvine` } } },
  });
  drop = db.drop;
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  app = await buildApp({ config: db.config, database: db.database, logger: { level: 'trace', stream } });
  await app.ready();
  const setup = await app.inject({ method: 'POST', url: '/api/v1/setup/initialize', payload: ADMIN });
  headers = { authorization: `Bearer ${setup.json<{ access_token: string }>().access_token}` };
});

afterAll(async () => {
  await app?.close();
  await drop?.();
  await replay?.close();
});

const call = async (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => {
  const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  answers.push(res.body, JSON.stringify(res.headers));
  return res;
};

describe("a provider's key", () => {
  it('is sent to the provider, and shown nowhere else, whatever the provider answers', async () => {
    expect((await call('PUT', '/api/v1/metadata/providers/metron', { key: KEY, enabled: true })).statusCode).toBe(200);
    const refused = await call('POST', '/api/v1/metadata/providers/metron/test');
    expect(refused.json()).toMatchObject({ ok: false });
    expect(replay.seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from(KEY).toString('base64')}`);
    const failing = await call('POST', '/api/v1/metadata/providers/metron/test');
    expect(failing.json()).toMatchObject({ ok: false });
    expect((await call('PUT', '/api/v1/metadata/providers/comicvine', { key: KEY, enabled: true })).statusCode).toBe(200);
    const answered = await call('POST', '/api/v1/metadata/providers/comicvine/test');
    expect(answered.json()).toMatchObject({ ok: true });
    expect(replay.seen.at(-1)?.url).toContain('api_key=');
    await call('GET', '/api/v1/metadata/providers');

    const encoded = [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('base64')];
    expect(logged.length).toBeGreaterThan(0);
    for (const text of [...answers, ...logged]) for (const form of encoded) expect(text).not.toContain(form);
    const rows = await app.inject({ method: 'GET', url: '/api/v1/metadata/providers', headers });
    expect(rows.body).toContain('"key_set":true');
  });
});
