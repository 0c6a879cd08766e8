import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
let bookId: string;
beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  await makeCbz(dir, 'Wide 001.cbz', { pages: 1, pageSize: { width: 900, height: 1200 } });
  await scan(t, (await createLibrary(t, dir)).id);
  bookId = (await t.database.db.selectFrom('books').select('id').executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

const thumbWidth = async () => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/books/${bookId}/thumbnail`,
    headers: { ...t.headers, accept: 'image/webp' },
  });
  expect(res.statusCode).toBe(200);
  return (await sharp(res.rawPayload).metadata()).width;
};

describe('the admin setting thumbnail_width applies at runtime', () => {
  it('serves 400 px covers by default and the new width right after the setting changes', async () => {
    expect(await thumbWidth()).toBe(400);
    expect((await api(t, 'PUT', '/api/v1/admin/settings/thumbnail_width', { value: 240 })).status).toBe(200);
    expect(await thumbWidth()).toBe(240);
  });
});
