import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/auth.js';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
let bookId: string;
beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  const file = await makeCbz(dir, 'Cookie 001.cbz', { pages: 2 });
  await scan(t, (await createLibrary(t, dir)).id);
  bookId = (await t.database.db.selectFrom('books').select('id').where('path', '=', path.basename(file)).executeTakeFirstOrThrow()).id;
});
afterAll(() => t.close());

const login = async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username: ADMIN.username, password: ADMIN.password },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ access_token: string }>().access_token;
};
const withCookie = (token: string) => ({ cookie: `theme=dark; colophon_file_token=${token}` });

describe('The web app downloads with a plain link: GET /books/{id}/file takes the access token from the colophon_file_token cookie', () => {
  it('streams the file as an attachment to a browser presenting only the cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/file`, headers: withCookie(await login()) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('attachment; filename="Cookie 001.cbz"');
    expect(res.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
  });

  it('is refused on every other route: the cookie is no general session (a JSON route answers 401)', async () => {
    const token = await login();
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}`, headers: withCookie(token) })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/books/${bookId}/read`, headers: withCookie(token) })).statusCode).toBe(401);
  });

  it('ends with the session: after logout, or with a forged token, the download answers 401', async () => {
    const token = await login();
    const logout = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: { authorization: `Bearer ${token}` } });
    expect(logout.statusCode).toBeLessThan(300);
    const after = await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/file`, headers: withCookie(token) });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('Unauthorized');
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/file`, headers: withCookie(`${token.slice(0, -4)}AAAA`) }))
        .statusCode,
    ).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/file` })).statusCode).toBe(401);
  });
});
