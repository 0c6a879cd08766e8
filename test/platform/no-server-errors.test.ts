import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

/**
 * Bad input gets a 4xx, never a 500: every documented operation is called with hostile path parameters,
 * query strings and bodies, as an administrator (so permission checks do not hide the handlers).
 */
let t: CatalogTestApp;
let operations: Array<{ method: string; path: string }> = [];
let realIds: string[] = [];
beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true } });
  const dir = libraryDir();
  await makeCbz(dir, 'Fuzz 001.cbz', { pages: 2 });
  const library = await createLibrary(t, dir);
  await scan(t, library.id);
  const book = await t.database.db.selectFrom('books').select(['id', 'series_id']).executeTakeFirstOrThrow();
  // Real ids reach the handlers (a malformed id stops at validation).
  realIds = [library.id, book.series_id, book.id];
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((method) => ({ method: method.toUpperCase(), path })),
  );
  // The Komga API is not in our OpenAPI document; its routes get the same treatment.
  for (const path of [
    '/komga/api/v1/series/{id}',
    '/komga/api/v1/books/{id}',
    '/komga/api/v1/books/{id}/file',
    '/komga/api/v1/books/{id}/file/{name}',
    '/komga/api/v1/books/{id}/thumbnail',
    '/komga/api/v1/books/{id}/pages/{n}',
    '/komga/api/v1/series',
    '/komga/api/v1/books/{id}/read-progress',
    '/komga/api/v2/series/{id}/read-progress/tachiyomi',
    '/komga/api/v1/series/list',
    '/komga/api/v1/books/list',
  ])
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE']) operations.push({ method, path });
});
afterAll(() => t.close());

const isErrorBody = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  !Array.isArray(body) &&
  ['details', 'error', 'message'].every((key) => key in body) &&
  typeof (body as { error: unknown }).error === 'string';

const PARAMS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%ZZ',
  '-1',
  '99999999999999999999',
  'x'.repeat(600),
];
const QUERIES = [
  '',
  '?page=-1&pageSize=abc',
  '?sort=name;drop%20table%20users&order=sideways',
  '?page_size=1e9&library_id=zzz',
  '?path=..%2F..%2F&width=-5&format=gif&mode=turbo&matchType=nope',
];
const BODIES: Array<string | undefined> = [
  undefined,
  '{}',
  '{"unterminated": ',
  '[]',
  'null',
  '{"condition": {"allOf": [{"title": {"operator": "drop", "value": 1}}]}, "fullTextSearch": 42}',
  JSON.stringify({ name: 'x'.repeat(100_000) }),
  '{"value": {"__proto__": {"polluted": true}}}',
];

describe('no request can make the server answer 500', () => {
  it('every operation, with hostile parameters, queries and bodies, answers below 500', async () => {
    expect(operations.length).toBeGreaterThan(140);
    const failures: string[] = [];
    let succeeded = 0;
    for (const op of operations) {
      if (op.path === '/api/v1/auth/logout' || op.path === '/api/v1/auth/logout-all' || op.path.endsWith('/stream')) continue;
      // Deleting the real rows would hide the handlers of later operations: deletes get hostile ids only.
      for (const [j, param] of (op.method === 'DELETE' ? PARAMS : [...PARAMS, ...realIds]).entries()) {
        const path = op.path.replace(/\{[^}]+\}/g, param);
        for (const [i, query] of QUERIES.entries()) {
          // Every body meets every operation: the parameter's index rotates them.
          const body = ['POST', 'PUT', 'PATCH'].includes(op.method) ? BODIES[(i + j) % BODIES.length] : undefined;
          const res = await t.app.inject({
            method: op.method as 'GET',
            url: `${path}${query}`,
            headers: { ...t.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
            ...(body !== undefined ? { payload: body } : {}),
          });
          if (res.statusCode < 300) succeeded += 1;
          if (res.statusCode >= 500) failures.push(`${op.method} ${path}${query} → ${res.statusCode} ${res.body.slice(0, 120)}`);
          else if (res.statusCode >= 400 && res.headers['content-type']?.toString().includes('json') && !isErrorBody(res.json())) {
            failures.push(`${op.method} ${path}${query} → ${res.statusCode} without the error body: ${res.body.slice(0, 120)}`);
          }
          if (op.method === 'GET') {
            // HEAD of every GET route (Fastify adds them): headers only, never a 500.
            const head = await t.app.inject({ method: 'HEAD', url: `${path}${query}`, headers: t.headers });
            if (head.statusCode >= 500) failures.push(`HEAD ${path}${query} → ${head.statusCode}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    // The real ids reached the handlers: many requests succeeded, so the sweep exercised more than validation.
    expect(succeeded).toBeGreaterThan(300);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 180_000);
});

describe('requests that once answered 500 or a body of the framework (found by fuzzing)', () => {
  it('a URL that does not decode and an over-long path segment get the API error body', async () => {
    for (const url of ['/api/v1/books/%ZZ', '/api/v1/books/%E0%A4%A', `/api/v1/books/${'x'.repeat(501)}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(Object.keys(res.json()).sort(), url).toEqual(['details', 'error', 'message']);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/books/%ZZ' })).json()).toMatchObject({ error: 'BadRequest' });
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/books/${'x'.repeat(501)}` })).json()).toMatchObject({ error: 'URITooLong' });
  });

  it('an empty body sent as application/json is no body: calls that take none succeed, ones that need one say so', async () => {
    const [libraryId, seriesId, bookId] = realIds;
    const json = { ...t.headers, 'content-type': 'application/json' };
    const bodiless = [
      { method: 'POST', url: `/api/v1/books/${bookId}/read`, expected: [200, 204] },
      { method: 'POST', url: `/api/v1/books/${bookId}/unread`, expected: [200, 204] },
      { method: 'POST', url: `/api/v1/series/${seriesId}/read`, expected: [200, 204] },
      { method: 'DELETE', url: `/api/v1/books/${bookId}/progress`, expected: [200, 204] },
      { method: 'POST', url: `/api/v1/libraries/${libraryId}/scan`, expected: [200, 201, 202] },
    ] as const;
    for (const { method, url, expected } of bodiless) {
      for (const payload of ['', '  \n']) {
        const res = await t.app.inject({ method, url, headers: json, payload });
        expect(expected as readonly number[], `${method} ${url} ${JSON.stringify(payload)}: ${res.statusCode} ${res.body}`).toContain(
          res.statusCode,
        );
      }
    }
    const needsBody = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: json, payload: '' });
    expect(needsBody.statusCode).toBe(400);
    expect(needsBody.json()).toMatchObject({ error: 'BadRequest' });
    const malformed = await t.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: json, payload: '{"name":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: 'BadRequest', message: 'Malformed JSON in request body' });
    const poisoned = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: json,
      payload: '{"name":"x","__proto__":{"a":1}}',
    });
    expect(poisoned.statusCode).toBe(400);
  });

  it('an API key updated with an empty body is answered as it is', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: t.headers,
      payload: { name: 'fuzz', preset: 'automation_script' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, name } = created.json<{ id: string; name: string }>();
    for (const method of ['PATCH', 'PUT'] as const) {
      for (const payload of [{}, { unknown: 1 }]) {
        const res = await t.app.inject({ method, url: `/api/v1/api-keys/${id}`, headers: t.headers, payload });
        expect(res.statusCode, `${method} ${JSON.stringify(payload)} ${res.body}`).toBeLessThan(500);
      }
    }
    const after = await t.app.inject({ method: 'GET', url: `/api/v1/api-keys/${id}`, headers: t.headers });
    expect(after.json()).toMatchObject({ id, name });
  });

  it('HEAD of the Komga download answers the headers of the file', async () => {
    const [, , bookId] = realIds;
    const get = await t.app.inject({ method: 'GET', url: `/komga/api/v1/books/${bookId}/file`, headers: t.headers });
    expect(get.statusCode).toBe(200);
    for (const url of [`/komga/api/v1/books/${bookId}/file`, `/komga/api/v1/books/${bookId}/file/Fuzz%20001.cbz`]) {
      const head = await t.app.inject({ method: 'HEAD', url, headers: t.headers });
      expect(head.statusCode, url).toBe(200);
      expect(head.headers['content-length']).toBe(String(get.rawPayload.length));
      expect(head.body).toBe('');
    }
  });

  it('browsing a path with an over-long name is a 400, not a 500', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/filesystem/browse?path=/${'a'.repeat(300)}`, headers: t.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'BadRequest', details: { code: 'ENAMETOOLONG' } });
  });
});
