import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/catalog/identify/client.js';
import { ResponseCacheRepository } from '../../src/catalog/identify/response-cache-repository.js';
import type { Database } from '../../src/db/connection.js';
import { createTestDatabase } from '../helpers/app.js';
import { json, replayServer, type ReplayServer } from '../helpers/replay-server.js';

/** A real recorded MangaDex search (test/fixtures/providers/SOURCES.md), replayed on loopback. */
const SEARCH = readFileSync(path.resolve(import.meta.dirname, '../fixtures/providers/mangadex/manga-list-title-chainsaw-man.json'), 'utf8');

let database: Database;
let drop: () => Promise<void>;
let server: ReplayServer;

beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
  server = await replayServer(json(200, SEARCH));
});
afterAll(async () => {
  await server.close();
  await database.close();
  await drop();
});

describe('answers of online databases are kept in the database', () => {
  it('the same search twice sends one request; another search, or the same after the TTL, asks again', async () => {
    let now = Date.parse('2026-12-02T12:00:00Z');
    const repo = new ResponseCacheRepository(database);
    const client = () =>
      new ProviderClient({
        name: 'MangaDex',
        baseUrl: server.url,
        userAgent: 'Colophon',
        limits: { rate: 100, burst: 100 },
        headers: { authorization: 'Bearer s3cret' },
        cache: repo,
        cacheTtlMs: 3_600_000,
        now: () => now,
      });
    const first = await client().json('/manga', { query: { title: 'Chainsaw Man' } });
    expect(first).toEqual(JSON.parse(SEARCH));
    expect(server.seen).toHaveLength(1);
    // Another client (a restart): the kept answer, no request.
    expect(await client().json('/manga', { query: { title: 'Chainsaw Man' } })).toEqual(first);
    expect(server.seen).toHaveLength(1);
    await client().json('/manga', { query: { title: 'Vinland Saga' } });
    expect(server.seen).toHaveLength(2);
    now += 3_600_001;
    await client().json('/manga', { query: { title: 'Chainsaw Man' } });
    expect(server.seen).toHaveLength(3);

    const rows = await database.db.selectFrom('metadata_responses').selectAll().execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.provider).toBe('MangaDex');
      expect(row.request_key).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain('s3cret');
    }
    expect(await repo.pruneExpired(new Date(now + 3_600_001))).toBe(2);
  });
});
