import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connection.js';
import type { App } from '../../src/http/types.js';
import { basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { writeThroughAnotherConnection } from '../helpers/other-connection.js';
import { writePagesBook } from '../browsing/corpus.js';
import { makeCbz, makeImage } from '../media/fixtures.js';

// Page requests are served from caches (verified tokens, the caller's user row, key and revocations, the places
// of stored pages): whatever is remembered, a credential or a permission taken away is refused on the very next
// page request. Two books: one whose pages are compressed (read through the archive), one stored (read straight
// from the file, the usual CBZ); every case is checked on both.

let t: CatalogTestApp;
let pageUrl: string;
let pageUrls: string[];

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => {
    await writePagesBook(dir);
    const stored = await makeImage({ width: 300, height: 450, format: 'jpeg', noise: true });
    await makeCbz(path.join(dir, 'Stored'), 'Stored 001.cbz', { pages: [{ name: '001.jpg', data: stored }], store: true });
  });
  const books = await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books');
  pageUrls = books.body.data.map((b) => `/api/v1/books/${b.id}/pages/1`);
  expect(pageUrls).toHaveLength(2);
  pageUrl = pageUrls[0]!;
});
afterAll(() => t.close());

/** The status of a page request, the same on both books (or a mismatch, which fails the comparison). */
const page = async (headers: Headers, app: App = t.app): Promise<number | string> => {
  const statuses: number[] = [];
  for (const url of pageUrls) statuses.push((await app.inject({ method: 'GET', url, headers })).statusCode);
  return statuses.every((s) => s === statuses[0]) ? statuses[0]! : statuses.join(' and ');
};

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

describe('The same, whichever way the credential is sent and whatever changed it', () => {
  it('a revoked API key sent as Bearer, and one whose user was disabled', async () => {
    const user = await createUser(t, 'reader');
    const revoked = await createApiKey(t, user.headers);
    const kept = { authorization: `Bearer ${(await createApiKey(t, user.headers)).key}` };
    const headers = { authorization: `Bearer ${revoked.key}` };
    await readingPages(headers);
    await readingPages(kept);
    expect((await call(t, user.headers, 'DELETE', `/api/v1/api-keys/${revoked.id}`)).status).toBe(204);
    expect(await page(headers)).toBe(401);
    expect(await page(kept)).toBe(200);
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { disabled: true })).status).toBe(200);
    expect(await page(kept)).toBe(401);
  });

  it('Basic credentials (an OPDS reader) after a password change', async () => {
    const user = await createUser(t, 'reader');
    const headers = basic(user.username, user.password);
    await readingPages(headers);
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { password: 'another-password-3' })).status).toBe(200);
    expect(await page(headers)).toBe(401);
    expect(await page(basic(user.username, 'another-password-3'))).toBe(200);
  });

  it('a user disabled and a token revoked by another connection to the database, not through the app', async () => {
    const disabled = await createUser(t, 'reader');
    const revoked = await createUser(t, 'reader');
    const key = { 'x-api-key': (await createApiKey(t, disabled.headers)).key };
    // Twice: the first use of a key writes its last use, which starts what is remembered afresh.
    for (let pass = 0; pass < 2; pass++) for (const headers of [disabled.headers, key, revoked.headers]) await readingPages(headers);
    const jti = (JSON.parse(Buffer.from(revoked.headers.authorization!.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
    await elsewhere([
      ['UPDATE users SET disabled = 1 WHERE id = $1', [disabled.id]],
      ['INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2)', [jti, new Date(Date.now() + 3_600_000).toISOString()]],
    ]);
    expect(await page(disabled.headers)).toBe(401);
    expect(await page(key)).toBe(401);
    expect(await page(revoked.headers)).toBe(401);
  });

  it('on another instance sharing the database: a logout, a disabled user, a revoked key, a password change', async () => {
    const other = await buildApp({ config: t.config, database: openDatabase(t.config), logger: false });
    try {
      await other.ready();
      const loggedOut = await createUser(t, 'reader');
      const disabled = await createUser(t, 'reader');
      const changed = await createUser(t, 'reader');
      const keyOwner = await createUser(t, 'reader');
      const key = await createApiKey(t, keyOwner.headers);
      const keyHeaders = { 'x-api-key': key.key };
      for (const headers of [loggedOut.headers, disabled.headers, changed.headers, keyHeaders]) {
        for (let i = 0; i < 3; i++) expect(await page(headers, other)).toBe(200);
      }
      expect((await call(t, loggedOut.headers, 'POST', '/api/v1/auth/logout')).status).toBe(204);
      expect((await api(t, 'PATCH', `/api/v1/users/${disabled.id}`, { disabled: true })).status).toBe(200);
      expect((await api(t, 'PATCH', `/api/v1/users/${changed.id}`, { password: 'another-password-4' })).status).toBe(200);
      expect((await call(t, keyOwner.headers, 'DELETE', `/api/v1/api-keys/${key.id}`)).status).toBe(204);
      expect(await page(loggedOut.headers, other)).toBe(401);
      expect(await page(disabled.headers, other)).toBe(401);
      expect(await page(changed.headers, other)).toBe(401);
      expect(await page(keyHeaders, other)).toBe(401);
    } finally {
      await other.close();
    }
  });
});

/** Statements run on a connection of their own ($n placeholders; `?` on SQLite), as another process would. */
const elsewhere = (statements: Array<[string, unknown[]]>) => writeThroughAnotherConnection(t.config, statements);

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
