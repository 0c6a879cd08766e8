import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { writePagesBook } from '../browsing/corpus.js';

// Page requests are served from caches (verified tokens, the caller's user row and revocations, the book's row):
// whatever is remembered, a credential or a permission taken away is refused on the very next page request.

let t: CatalogTestApp;
let pageUrl: string;

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => void (await writePagesBook(dir)));
  const books = await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books');
  pageUrl = `/api/v1/books/${books.body.data[0]!.id}/pages/1`;
});
afterAll(() => t.close());

const page = async (headers: Headers) => (await call(t, headers, 'GET', pageUrl)).status;

/** Reads the page a few times, so that whatever the server caches for these credentials is cached. */
async function readingPages(headers: Headers): Promise<void> {
  for (let i = 0; i < 3; i++) expect(await page(headers)).toBe(200);
}

const bearer = async (username: string, password: string): Promise<Headers> => {
  const res = await call<{ access_token: string }>(t, {}, 'POST', '/api/v1/auth/login', { username, password });
  expect(res.status).toBe(200);
  return { authorization: `Bearer ${res.body.access_token}` };
};

describe('A credential taken away is refused on the very next page request', () => {
  it('a revoked API key', async () => {
    const user = await createUser(t, 'reader');
    const key = await createApiKey(t, user.headers);
    const headers = { 'x-api-key': key.key };
    await readingPages(headers);
    expect((await call(t, user.headers, 'DELETE', `/api/v1/api-keys/${key.id}`)).status).toBe(204);
    expect(await page(headers)).toBe(401);
  });

  it('an API key whose permissions no longer include pages-read', async () => {
    const user = await createUser(t, 'reader');
    const key = await createApiKey(t, user.headers, { name: 'reader app', permissions: ['books-read', 'pages-read'] });
    const headers = { 'x-api-key': key.key };
    await readingPages(headers);
    const changed = await call(t, user.headers, 'PUT', `/api/v1/api-keys/${key.id}`, { permissions: ['books-read'] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await page(headers)).toBe(403);
  });

  it('a logged-out token', async () => {
    const user = await createUser(t, 'reader');
    await readingPages(user.headers);
    expect((await call(t, user.headers, 'POST', '/api/v1/auth/logout')).status).toBe(204);
    expect(await page(user.headers)).toBe(401);
  });

  it('every token of an account signed out everywhere', async () => {
    const user = await createUser(t, 'reader');
    const other = await bearer(user.username, user.password);
    await readingPages(user.headers);
    await readingPages(other);
    expect((await call(t, user.headers, 'POST', '/api/v1/auth/logout-all')).status).toBe(204);
    expect(await page(user.headers)).toBe(401);
    expect(await page(other)).toBe(401);
  });

  it('a demoted user (new role) and a user whose permissions changed', async () => {
    const demoted = await createUser(t, 'maintainer');
    const narrowed = await createUser(t, 'reader', ['tasks-read']);
    await readingPages(demoted.headers);
    await readingPages(narrowed.headers);
    expect((await api(t, 'PATCH', `/api/v1/users/${demoted.id}`, { role: 'reader' })).status).toBe(200);
    expect((await api(t, 'PATCH', `/api/v1/users/${narrowed.id}`, { permissions: [] })).status).toBe(200);
    expect(await page(demoted.headers)).toBe(401);
    expect(await page(narrowed.headers)).toBe(401);
  });

  it('a disabled user, by token and by API key', async () => {
    const user = await createUser(t, 'reader');
    const key = { 'x-api-key': (await createApiKey(t, user.headers)).key };
    await readingPages(user.headers);
    await readingPages(key);
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { disabled: true })).status).toBe(200);
    expect(await page(user.headers)).toBe(401);
    expect(await page(key)).toBe(401);
  });

  it('a deleted user', async () => {
    const user = await createUser(t, 'reader');
    await readingPages(user.headers);
    expect((await api(t, 'DELETE', `/api/v1/users/${user.id}`)).status).toBe(204);
    expect(await page(user.headers)).toBe(401);
  });

  it('a changed password, changed by the user or set by an administrator', async () => {
    const own = await createUser(t, 'reader');
    const other = await bearer(own.username, own.password);
    await readingPages(other);
    const changed = await call(t, own.headers, 'POST', '/api/v1/auth/change-password', {
      current_password: own.password,
      new_password: 'another-password-1',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(204);
    expect(await page(other)).toBe(401);

    const reset = await createUser(t, 'reader');
    await readingPages(reset.headers);
    expect((await api(t, 'PATCH', `/api/v1/users/${reset.id}`, { password: 'another-password-2' })).status).toBe(200);
    expect(await page(reset.headers)).toBe(401);
  });

  it('a book whose library was deleted', async () => {
    const user = await createUser(t, 'reader');
    const lib = await scannedLibrary(t, async (dir) => void (await writePagesBook(dir)));
    const books = await api<Paged<{ id: string; library_id: string }>>(t, 'GET', `/api/v1/books?pageSize=500`);
    const book = books.body.data.find((b) => b.library_id === lib.id)!;
    const url = `/api/v1/books/${book.id}/pages/1`;
    for (let i = 0; i < 3; i++) expect((await call(t, user.headers, 'GET', url)).status).toBe(200);
    expect((await api(t, 'DELETE', `/api/v1/libraries/${lib.id}`)).status).toBe(204);
    expect((await call(t, user.headers, 'GET', url)).status).toBe(404);
  });
});

describe('What a refused token is told', () => {
  // The user row and the token's revocation are read in one query; without a user, the logout is still named.
  it('a logged-out token of a user deleted since is refused as logged out', async () => {
    const user = await createUser(t, 'reader');
    await readingPages(user.headers);
    expect((await call(t, user.headers, 'POST', '/api/v1/auth/logout')).status).toBe(204);
    expect((await api(t, 'DELETE', `/api/v1/users/${user.id}`)).status).toBe(204);
    const refused = await call<{ error: string; message: string }>(t, user.headers, 'GET', pageUrl);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Token has been revoked (logged out)');
  });

  it('a token of a deleted user that was never logged out is refused as the user gone', async () => {
    const user = await createUser(t, 'reader');
    await readingPages(user.headers);
    expect((await api(t, 'DELETE', `/api/v1/users/${user.id}`)).status).toBe(204);
    const refused = await call<{ error: string; message: string }>(t, user.headers, 'GET', pageUrl);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('User no longer exists or is disabled');
  });
});
