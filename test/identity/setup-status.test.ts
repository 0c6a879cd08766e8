import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders } from '../helpers/auth.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const status = async (app: TestApp) => {
  const res = await app.app.inject({ method: 'GET', url: '/api/v1/setup/status' });
  expect(res.statusCode).toBe(200);
  return res.json<{ setup_required: boolean; registration_enabled: boolean; koreader_sync_path: string | null }>();
};

describe('GET /setup/status tells a signed-out client what the server offers', () => {
  it('registration_enabled follows the admin setting at once, without authentication', async () => {
    t = await createTestApp();
    expect(await status(t)).toMatchObject({ setup_required: true, registration_enabled: false });
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/settings/registration_enabled',
      headers: await adminHeaders(t),
      payload: { value: true },
    });
    expect(put.statusCode).toBe(200);
    expect(await status(t)).toMatchObject({ setup_required: false, registration_enabled: true });
  });

  it('starts from the configuration file when the setting was never changed', async () => {
    t = await createTestApp({ auth: { registration_enabled: true } });
    expect((await status(t)).registration_enabled).toBe(true);
  });

  it('koreader_sync_path is the configured kosync prefix, null when KOReader sync is off', async () => {
    t = await createTestApp();
    expect((await status(t)).koreader_sync_path).toBe('/koreader');
    await t.close();
    t = await createTestApp({ koreader: { prefix: '/sync/ko' } });
    expect((await status(t)).koreader_sync_path).toBe('/sync/ko');
    await t.close();
    t = await createTestApp({ koreader: { enabled: false } });
    expect((await status(t)).koreader_sync_path).toBeNull();
  });

  it('declares both fields in the OpenAPI document', async () => {
    t = await createTestApp();
    const doc = t.app.swagger() as { components: { schemas: Record<string, { required: string[] }> } };
    expect(doc.components.schemas.SetupStatus!.required).toEqual(expect.arrayContaining(['registration_enabled', 'koreader_sync_path']));
  });
});
