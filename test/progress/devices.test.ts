import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { makeCbz } from '../media/fixtures.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { databaseAt } from '../helpers/migrations.js';

interface Device {
  id: string;
  kind: string;
  name: string;
  detected_name: string;
  renamed: boolean;
  api_key: { id: string; name: string } | null;
  client_device_id: string | null;
  client_name: string | null;
  user_agent: string | null;
  last_protocol: string | null;
  first_seen_at: string;
  last_sync_at: string;
}

const KOREADER_UA = 'KOReader/2024.11 (Kobo)';
const MIHON_UA = 'Mihon v0.17.0 (app.mihon)';

describe('Devices: listed with their last sync, renamed, removed', () => {
  let t: CatalogTestApp;
  let bookId: string;
  let file: string;

  beforeAll(async () => {
    t = await createCatalogApp({ komga_api: { enabled: true } });
    await scannedLibrary(t, async (dir) => {
      file = await makeCbz(dir, 'Saga/Saga 1.cbz', { pages: 8, pageSize: { width: 40, height: 60 } });
    });
    bookId = (await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data[0]!.id;
  }, 60_000);
  afterAll(() => t?.close());

  /** The same reader on three devices: KOReader (an API key), Mihon (Basic, its User-Agent), a browser. */
  async function readerOnThreeDevices() {
    const reader = await createUser(t, 'reader');
    const key = await createApiKey(t, reader.headers, { name: 'Kobo key' });
    const sync = koreaderClient(t, key.key);
    expect(
      (
        await sync('PUT', '/syncs/progress', {
          document: koreaderPartialMd5(file),
          progress: '2',
          percentage: 0.25,
          device: 'Kobo Libra 2',
          device_id: 'KOBO-DEVICE-1',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/komga/api/v1/books/${bookId}/read-progress`,
          headers: { ...basic(reader.username, reader.password), 'user-agent': MIHON_UA },
          payload: { page: 3 },
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await call(t, { ...reader.headers, 'user-agent': 'Mozilla/5.0 Firefox/133' }, 'PUT', `/api/v1/books/${bookId}/progress`, {
          current_page: 4,
        })
      ).status,
    ).toBe(200);
    return { reader, key, sync };
  }

  it('GET /me/devices lists each device with its API key, the id and name KOReader sent, its User-Agent, protocol and last sync', async () => {
    const { reader, key } = await readerOnThreeDevices();
    const res = await call<Paged<Device>>(t, reader.headers, 'GET', '/api/v1/me/devices');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    const [web, mihon, kobo] = res.body.data;
    expect(kobo).toMatchObject({
      id: `key:${key.id}`,
      kind: 'api_key',
      name: 'Kobo key',
      detected_name: 'Kobo key',
      renamed: false,
      api_key: { id: key.id, name: 'Kobo key' },
      client_device_id: 'KOBO-DEVICE-1',
      client_name: 'Kobo Libra 2',
      user_agent: KOREADER_UA,
      last_protocol: 'koreader',
    });
    expect(mihon).toMatchObject({
      kind: 'user_agent',
      name: MIHON_UA,
      api_key: null,
      client_device_id: null,
      user_agent: MIHON_UA,
      last_protocol: 'komga',
    });
    expect(web).toMatchObject({ kind: 'user_agent', user_agent: 'Mozilla/5.0 Firefox/133', last_protocol: 'colophon' });
    expect(Date.parse(web!.last_sync_at)).toBeGreaterThanOrEqual(Date.parse(kobo!.last_sync_at));
    // Another user sees none of them.
    expect((await call<Paged<Device>>(t, (await createUser(t, 'reader')).headers, 'GET', '/api/v1/me/devices')).body.data).toEqual([]);
  });

  it('PATCH renames (the statistics show the name; a later sync keeps it); null gives the detected name back', async () => {
    const { reader, key, sync } = await readerOnThreeDevices();
    const id = encodeURIComponent(`key:${key.id}`);
    const renamed = await call<Device>(t, reader.headers, 'PATCH', `/api/v1/me/devices/${id}`, { name: '  My Kobo  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'My Kobo', detected_name: 'Kobo key', renamed: true });
    await sync('PUT', '/syncs/progress', {
      document: koreaderPartialMd5(file),
      progress: '5',
      percentage: 0.6,
      device: 'Kobo Libra 2',
      device_id: 'KOBO-DEVICE-1',
    });
    const stats = await call<{ devices: Array<{ device_id: string; name: string }> }>(t, reader.headers, 'GET', '/api/v1/reading-stats');
    expect(stats.body.devices.find((d) => d.device_id === `key:${key.id}`)!.name).toBe('My Kobo');
    expect((await call<Paged<Device>>(t, reader.headers, 'GET', '/api/v1/me/devices')).body.data[0]).toMatchObject({
      id: `key:${key.id}`,
      name: 'My Kobo',
    });

    const back = await call<Device>(t, reader.headers, 'PATCH', `/api/v1/me/devices/${id}`, { name: null });
    expect(back.body).toMatchObject({ name: 'Kobo key', renamed: false });
    const empty = await call<{ error: string }>(t, reader.headers, 'PATCH', `/api/v1/me/devices/${id}`, { name: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBeDefined();
    const other = await createUser(t, 'reader');
    const foreign = await call<{ error: string }>(t, other.headers, 'PATCH', `/api/v1/me/devices/${id}`, { name: 'Mine' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('NotFound');
  });

  it('DELETE forgets a device (its positions stay in the history); a second DELETE is 404; a progress-read key may list but not remove', async () => {
    const { reader } = await readerOnThreeDevices();
    const devices = (await call<Paged<Device>>(t, reader.headers, 'GET', '/api/v1/me/devices')).body.data;
    const mihon = devices.find((d) => d.last_protocol === 'komga')!;
    const readOnly = (await createApiKey(t, reader.headers, { name: 'viewer', permissions: ['progress-read'] })).key;
    expect((await call(t, { 'x-api-key': readOnly }, 'GET', '/api/v1/me/devices')).status).toBe(200);
    expect((await call(t, { 'x-api-key': readOnly }, 'DELETE', `/api/v1/me/devices/${encodeURIComponent(mihon.id)}`)).status).toBe(403);

    expect((await call(t, reader.headers, 'DELETE', `/api/v1/me/devices/${encodeURIComponent(mihon.id)}`)).status).toBe(204);
    const after = (await call<Paged<Device>>(t, reader.headers, 'GET', '/api/v1/me/devices')).body.data;
    expect(after.map((d) => d.id)).not.toContain(mihon.id);
    expect(after).toHaveLength(devices.length - 1);
    const history = (await call<Paged<{ device_id: string }>>(t, reader.headers, 'GET', `/api/v1/books/${bookId}/progress/history`)).body
      .data;
    expect(history.map((e) => e.device_id)).toContain(mihon.id);
    expect((await call(t, reader.headers, 'DELETE', `/api/v1/me/devices/${encodeURIComponent(mihon.id)}`)).status).toBe(404);
  });

  it('the endpoints are in the OpenAPI document with their schemas', () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(Object.keys(doc.paths['/api/v1/me/devices'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/v1/me/devices/{id}'] ?? {}).sort()).toEqual(['delete', 'patch']);
    expect(doc.components.schemas).toHaveProperty('Device');
    expect(doc.components.schemas).toHaveProperty('DeviceRename');
  });
});

describe('Migration 0015 from a database with devices', () => {
  it("keeps every device, with no name of the user's and no details until its next sync", async () => {
    const { database, drop } = await databaseAt('0014_progress_client_time');
    try {
      const at = '2024-03-01T10:00:00.000Z';
      const db = database.db;
      await db
        .insertInto('users')
        .values({
          id: 'u1',
          username: 'u1',
          username_key: 'u1',
          email: 'u1@x.org',
          email_key: 'u1@x.org',
          password_hash: 'x',
          role: 'reader',
          created_at: at,
          updated_at: at,
        } as never)
        .execute();
      const devices = [
        { user_id: 'u1', device_id: 'hdr:kobo', kind: 'header', name: 'kobo', first_seen_at: at, last_seen_at: '2024-03-02T10:00:00.000Z' },
        { user_id: 'u1', device_id: 'ua:0123456789abcdef', kind: 'user_agent', name: 'Firefox', first_seen_at: at, last_seen_at: at },
      ];
      await db
        .insertInto('reading_devices')
        .values(devices as never)
        .execute();

      await migrateToLatest(database);

      expect(await db.selectFrom('reading_devices').selectAll().orderBy('device_id').execute()).toEqual(
        devices.map((d) => ({ ...d, label: null, client_device_id: null, client_name: null, user_agent: null, last_protocol: null })),
      );
    } finally {
      await drop();
    }
  });
});
