import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../src/events/types.js';
import { userHeaders } from '../helpers/auth.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { asRoot, notAsRoot } from '../helpers/temp-dir.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

describe('Library: name and path required on create; path absolute and readable', () => {
  it('creates a library (201) with the spec fields and default scanning_config', async () => {
    const dir = libraryDir();
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'Comics', path: dir });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Comics',
      path: dir,
      scanning_config: { enabled: false, cron_schedule: null, default_mode: 'normal', scan_on_start: false },
      series_count: 0,
      book_count: 0,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects a missing name or path with 400', async () => {
    expect((await api(t, 'POST', '/api/v1/libraries', { path: libraryDir() })).status).toBe(400);
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'No path' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'BadRequest' });
  });

  it('rejects a relative path with 400', async () => {
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'Relative', path: 'comics/manga' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'BadRequest', message: 'path must be absolute' });
  });

  it('rejects a path that does not exist with 400', async () => {
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'Missing', path: path.join(libraryDir(), 'nope') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'BadRequest', message: 'path does not exist' });
  });

  it('rejects a file (not a directory) with 400', async () => {
    const file = path.join(libraryDir(), 'file.txt');
    writeFileSync(file, 'x');
    expect((await api(t, 'POST', '/api/v1/libraries', { name: 'File', path: file })).body).toMatchObject({
      error: 'BadRequest',
      message: 'path is not a directory',
    });
  });

  it.skipIf(asRoot)(notAsRoot('rejects an unreadable directory with 400'), async () => {
    const dir = libraryDir();
    chmodSync(dir, 0o000);
    try {
      expect((await api(t, 'POST', '/api/v1/libraries', { name: 'Locked', path: dir })).body).toMatchObject({
        message: 'path is not readable by the server',
      });
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});

describe('Library: a path overlapping another library (identical or nested) is a 409 Conflict', () => {
  it('identical, nested inside, and containing another library are rejected', async () => {
    const dir = libraryDir();
    mkdirSync(path.join(dir, 'inner'));
    await createLibrary(t, dir);
    for (const p of [dir, `${dir}/`, path.join(dir, 'inner'), path.dirname(dir)]) {
      const res = await api(t, 'POST', '/api/v1/libraries', { name: 'Overlap', path: p });
      expect(res.status, p).toBe(409);
      expect(res.body).toMatchObject({ error: 'Conflict' });
    }
  });

  it('a sibling folder with a common name prefix is not an overlap', async () => {
    const dir = libraryDir();
    mkdirSync(`${dir}-two`);
    await createLibrary(t, dir);
    expect((await api(t, 'POST', '/api/v1/libraries', { name: 'Sibling', path: `${dir}-two` })).status).toBe(201);
  });
});

describe('Library: scanning_config {enabled, cron_schedule, default_mode, scan_on_start} round-trips', () => {
  it('round-trips on create, GET and list; camelCase spelling accepted', async () => {
    const scanning_config = {
      enabled: true,
      cron_schedule: '0 3 * * *',
      default_mode: 'deep',
      scan_on_start: true,
      import_lists: true,
      watch: false,
      watch_poll_seconds: 60,
      watch_quiet_seconds: 2,
      write_comicinfo: true,
      exclude: ['**/extras/**'],
      media_type: 'manga',
      identify_after_scan: true,
      identify_schedule: '0 4 * * 0',
    };
    const created = await api(t, 'POST', '/api/v1/libraries', { name: 'Scheduled', path: libraryDir(), scanning_config });
    expect(created.status).toBe(201);
    expect(created.body.scanning_config).toEqual(scanning_config);
    const got = await api(t, 'GET', `/api/v1/libraries/${created.body.id}`);
    expect(got.body.scanning_config).toEqual(scanning_config);
    const camel = await api(t, 'POST', '/api/v1/libraries', {
      name: 'Camel',
      path: libraryDir(),
      scanningConfig: { enabled: false, cronSchedule: '*/15 * * * *', defaultMode: 'deep', scanOnStart: false },
    });
    expect(camel.status).toBe(201);
    expect(camel.body.scanning_config).toEqual({
      enabled: false,
      cron_schedule: '*/15 * * * *',
      default_mode: 'deep',
      scan_on_start: false,
      import_lists: true,
      watch: true,
      watch_poll_seconds: null,
      watch_quiet_seconds: 10,
      write_comicinfo: false,
      exclude: [],
      media_type: 'auto',
      identify_after_scan: false,
      identify_schedule: null,
    });
    const list = await api<{ data: Array<{ id: string; scanning_config: unknown }> }>(t, 'GET', '/api/v1/libraries');
    expect(list.body.data.find((l) => l.id === created.body.id)?.scanning_config).toEqual(scanning_config);
  });

  it('a bad cron expression is a 400 (create, PUT and PATCH)', async () => {
    for (const cron of ['not a cron', '* * * *', '0 0 * * * *', '61 * * * *']) {
      const res = await api(t, 'POST', '/api/v1/libraries', {
        name: 'Bad cron',
        path: libraryDir(),
        scanning_config: { enabled: true, cron_schedule: cron },
      });
      expect(res.status, cron).toBe(400);
      expect(res.body).toMatchObject({ error: 'BadRequest' });
    }
    const lib = await createLibrary(t, libraryDir());
    expect((await api(t, 'PATCH', `/api/v1/libraries/${lib.id}`, { scanning_config: { cron_schedule: '99 * * * *' } })).status).toBe(400);
    expect(
      (await api(t, 'PUT', `/api/v1/libraries/${lib.id}`, { name: 'x', path: libraryDir(), scanning_config: { cron_schedule: 'nope' } }))
        .status,
    ).toBe(400);
  });

  it('a bad default_mode is a 400', async () => {
    const res = await api(t, 'POST', '/api/v1/libraries', { name: 'Mode', path: libraryDir(), scanning_config: { default_mode: 'fast' } });
    expect(res.status).toBe(400);
  });
});

describe('GET /libraries, GET/PUT/PATCH /libraries/{id}', () => {
  it('lists libraries in the paginated envelope', async () => {
    const res = await api<{ data: unknown[]; page: number; pageSize: number; total: number; totalPages: number; links: object }>(
      t,
      'GET',
      '/api/v1/libraries?pageSize=2',
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 2 });
    expect(res.body.data.length).toBeLessThanOrEqual(2);
    expect(res.body.total).toBeGreaterThan(2);
    expect(res.body.links).toHaveProperty('next');
  });

  it('unknown id is 404 NotFound; a malformed id is 400', async () => {
    const res = await api(t, 'GET', '/api/v1/libraries/0190a0a0-0000-7000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'NotFound' });
    expect((await api(t, 'GET', '/api/v1/libraries/42')).status).toBe(400);
  });

  it('PUT updates name and path (with the same path checks); PATCH updates a subset', async () => {
    const events: EntityEvent[] = [];
    const off = t.app.events.on('library_updated', (e) => events.push(e));
    const lib = await createLibrary(t, libraryDir());
    const newDir = libraryDir();
    const put = await api(t, 'PUT', `/api/v1/libraries/${lib.id}`, { name: 'Renamed', path: newDir });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: lib.id, name: 'Renamed', path: newDir });
    expect((await api(t, 'PUT', `/api/v1/libraries/${lib.id}`, { name: 'Renamed' })).status).toBe(400);
    expect((await api(t, 'PUT', `/api/v1/libraries/${lib.id}`, { name: 'R', path: 'relative/path' })).status).toBe(400);
    const patch = await api(t, 'PATCH', `/api/v1/libraries/${lib.id}`, { scanning_config: { default_mode: 'deep' } });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ name: 'Renamed', path: newDir, scanning_config: { default_mode: 'deep', enabled: false } });
    off();
    expect(events.filter((e) => e.library_id === lib.id).map((e) => e.type)).toEqual(['library_updated', 'library_updated']);
  });

  it('PUT onto another library path is a 409', async () => {
    const a = libraryDir();
    await createLibrary(t, a);
    const b = await createLibrary(t, libraryDir());
    expect((await api(t, 'PUT', `/api/v1/libraries/${b.id}`, { name: 'b', path: path.join(a) })).status).toBe(409);
  });

  it('library_created is published on the bus with the entity payload', async () => {
    const events: EntityEvent[] = [];
    const off = t.app.events.on('library_created', (e) => events.push(e));
    const lib = await createLibrary(t, libraryDir());
    off();
    expect(events).toEqual([{ type: 'library_created', library_id: lib.id, timestamp: expect.any(String) }]);
  });
});

describe('Permissions: libraries-read to view, libraries-write to change, libraries-delete to delete', () => {
  it('a reader can list but not create or delete', async () => {
    const reader = await userHeaders(t, 'reader');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/libraries', headers: reader })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/libraries', headers: reader, payload: { name: 'x', path: libraryDir() } }))
        .statusCode,
    ).toBe(403);
    const lib = await createLibrary(t, libraryDir());
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/libraries/${lib.id}`, headers: reader })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/libraries' })).statusCode).toBe(401);
  });
});

describe('GET /libraries/{id}/thumbnail: cover of its most recent series, a generated image when empty', () => {
  it('an empty library gets a generated image', async () => {
    const lib = await createLibrary(t, libraryDir());
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/libraries/${lib.id}/thumbnail`, headers: t.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\//);
    expect(res.rawPayload.length).toBeGreaterThan(50);
  });

  it('a scanned library returns the cover of its most recently added series as an image', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 2 });
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/libraries/${lib.id}/thumbnail`, headers: t.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/(webp|jpeg|png)$/);
    expect((await api(t, 'GET', `/api/v1/libraries/0190a0a0-0000-7000-8000-000000000000/thumbnail`)).status).toBe(404);
  });
});

describe('DELETE /libraries/{id}: removes its series and books, emits events', () => {
  it('deletes (204), then the library is 404 and its series and books are gone', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'A/A 01.cbz', { pages: 1 });
    await makeCbz(dir, 'B/B 01.cbz', { pages: 1 });
    const lib = await createLibrary(t, dir);
    await scan(t, lib.id);
    const events: EntityEvent[] = [];
    const off = t.app.events.onAny((name, e) => {
      if (name !== 'task_progress' && 'library_id' in e && e.library_id === lib.id) events.push(e as EntityEvent);
    });
    const res = await api(t, 'DELETE', `/api/v1/libraries/${lib.id}`);
    off();
    expect(res.status).toBe(204);
    expect((await api(t, 'GET', `/api/v1/libraries/${lib.id}`)).status).toBe(404);
    const db = t.database.db;
    expect(await db.selectFrom('books').select('id').where('library_id', '=', lib.id).execute()).toEqual([]);
    expect(await db.selectFrom('series').select('id').where('library_id', '=', lib.id).execute()).toEqual([]);
    expect(events.filter((e) => e.type === 'series_deleted')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'library_deleted', library_id: lib.id });
    expect((await api(t, 'DELETE', `/api/v1/libraries/${lib.id}`)).status).toBe(404);
  });
});
