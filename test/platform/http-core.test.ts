import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pageRequest, PaginationQuery, paginated, toPage } from '../../src/http/pagination.js';
import { IdParams } from '../../src/http/params.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ITEMS = Array.from({ length: 120 }, (_, i) => ({ n: i + 1 }));
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp(
    { server: { body_limit_bytes: 1024 } },
    {
      extraRoutes: (app) => {
        app.get(
          '/test/items',
          {
            config: { public: true },
            schema: {
              querystring: PaginationQuery.extend({ sort: z.string().optional() }),
              response: { 200: paginated(z.object({ n: z.number() })) },
            },
          },
          (req) => {
            const page = pageRequest(req.query);
            return toPage(req.url, page, ITEMS.length, ITEMS.slice(page.offset, page.offset + page.pageSize));
          },
        );
        app.post(
          '/test/items/list',
          { config: { public: true }, schema: { querystring: PaginationQuery, body: z.object({ name: z.string().min(1) }) } },
          (req) => {
            const page = pageRequest(req.query);
            return toPage(req.url, page, 0, []);
          },
        );
        app.get('/test/things/:id', { config: { public: true }, schema: { params: IdParams } }, (req) => ({ id: req.params.id }));
      },
    },
  );
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('pagination: page default 1, pageSize default 50, max 500, page_size alias', () => {
  it('first page: defaults, no prev, next present, links carry page and pageSize', async () => {
    const res = await get('/test/items');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, pageSize: 50, total: 120, totalPages: 3 });
    expect(body.data).toHaveLength(50);
    expect(body.links).toEqual({
      self: '/test/items?page=1&pageSize=50',
      first: '/test/items?page=1&pageSize=50',
      next: '/test/items?page=2&pageSize=50',
      last: '/test/items?page=3&pageSize=50',
    });
    expect(body.links).not.toHaveProperty('prev');
  });

  it('middle page has prev and next and keeps other query parameters', async () => {
    const body = (await get('/test/items?page=2&pageSize=50&sort=name,asc')).json();
    expect(body.data[0]).toEqual({ n: 51 });
    expect(body.links.prev).toBe('/test/items?sort=name%2Casc&page=1&pageSize=50');
    expect(body.links.next).toBe('/test/items?sort=name%2Casc&page=3&pageSize=50');
  });

  it('last page has no next', async () => {
    const body = (await get('/test/items?page=3')).json();
    expect(body.data).toHaveLength(20);
    expect(body.links.prev).toBe('/test/items?page=2&pageSize=50');
    expect(body.links).not.toHaveProperty('next');
  });

  it('a page past the end is empty, with prev pointing at the last page', async () => {
    const body = (await get('/test/items?page=9')).json();
    expect(body.data).toEqual([]);
    expect(body.links.prev).toBe('/test/items?page=3&pageSize=50');
    expect(body.links).not.toHaveProperty('next');
  });

  it('an empty list has one page and neither prev nor next', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/items/list?pageSize=10', payload: { name: 'x' } });
    expect(res.json()).toEqual({
      data: [],
      page: 1,
      pageSize: 10,
      total: 0,
      totalPages: 1,
      links: {
        self: '/test/items/list?page=1&pageSize=10',
        first: '/test/items/list?page=1&pageSize=10',
        last: '/test/items/list?page=1&pageSize=10',
      },
    });
  });

  it('caps pageSize at 500', async () => {
    const body = (await get('/test/items?pageSize=100000')).json();
    expect(body.pageSize).toBe(500);
    expect(body.links.self).toBe('/test/items?page=1&pageSize=500');
  });

  it('accepts page_size as an alias and links use pageSize', async () => {
    const body = (await get('/test/items?page_size=7&page=2')).json();
    expect(body.pageSize).toBe(7);
    expect(body.data[0]).toEqual({ n: 8 });
    expect(body.links.self).toBe('/test/items?page=2&pageSize=7');
    expect((await get('/test/items?page_size=7&pageSize=9')).json().pageSize).toBe(9);
  });

  it('rejects page 0 and non-numbers with 400', async () => {
    for (const q of ['page=0', 'pageSize=0', 'page=abc', 'pageSize=-5']) {
      const res = await get(`/test/items?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error).toBe('BadRequest');
    }
  });

  it('pageRequest computes offsets', () => {
    expect(pageRequest({ page: 3, pageSize: 20 })).toEqual({ page: 3, pageSize: 20, offset: 40 });
  });
});

describe('error body {error, message, details}', () => {
  it('400 for a validation failure names the failing field in details', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/items/list', payload: { name: 42 } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('BadRequest');
    expect(typeof body.message).toBe('string');
    expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name', location: 'body' })]));
  });

  it('400 for malformed JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/items/list',
      payload: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'BadRequest', message: 'Malformed JSON in request body', details: null });
  });

  it('413 for a body over the limit', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/items/list', payload: { name: 'x'.repeat(5000) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'PayloadTooLarge', details: null });
  });

  it('404 NotFound for an unknown route', async () => {
    const res = await get('/api/v1/does-not-exist');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'NotFound', message: 'No route for GET /api/v1/does-not-exist', details: null });
  });

  it('a malformed UUID path parameter is 400, never 500', async () => {
    const res = await get('/test/things/not-a-uuid');
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ location: 'params', field: 'id' });
    expect((await get('/test/things/0190d5e8-7b1c-7cc3-8a1e-2f4d5e6f7a8b')).statusCode).toBe(200);
  });
});
