import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { writeThroughAnotherConnection } from '../helpers/other-connection.js';
import { writeCorpus } from './corpus.js';

// List answers (pages of series and books, On Deck, search) are kept per caller and request while the database is
// unchanged (http/unchanged-answers.ts, SQLite). Whatever is kept, each answer must be the one computed afresh:
// after a write of this instance or of another connection, for another user, another credential, another body.

let t: CatalogTestApp;
let reader: { id: string; headers: Headers };

interface SeriesRow {
  id: string;
  name: string;
  books_read_count: number;
}

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, writeCorpus);
  reader = await createUser(t, 'reader');
});
afterAll(() => t.close());

const seriesPage = async (headers: Headers, url = '/api/v1/series?pageSize=50') => {
  const res = await call<Paged<SeriesRow>>(t, headers, 'GET', url);
  expect(res.status).toBe(200);
  return res;
};

/**
 * A POST whose body arrives only after `meanwhile` ran, started once the server reads the body: by then its
 * `onRequest` hooks, which resolve the caller, have run.
 */
async function postWithLateBody(headers: Headers, url: string, body: string, meanwhile: () => Promise<void>) {
  const payload = new PassThrough();
  const answer = t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload });
  while (payload.listenerCount('readable') === 0) await new Promise((resolve) => setImmediate(resolve));
  await meanwhile();
  payload.end(body);
  const res = await answer;
  expect(res.statusCode).toBe(200);
  return JSON.parse(res.body) as Paged<SeriesRow>;
}

describe('List answers kept while the database is unchanged', () => {
  it('answers the same bytes and headers again, and the next answer after a write of this instance is computed afresh', async () => {
    const first = await seriesPage(reader.headers);
    const again = await seriesPage(reader.headers);
    expect(again.raw.body).toBe(first.raw.body);
    expect(again.raw.headers['content-type']).toBe(first.raw.headers['content-type']);
    expect(again.raw.headers['x-content-type-options']).toBe(first.raw.headers['x-content-type-options']);
    const series = first.body.data.find((s) => s.name === 'Batman')!;
    expect(series.books_read_count).toBe(0);
    const books = await call<Paged<{ id: string }>>(t, reader.headers, 'GET', `/api/v1/series/${series.id}/books`);
    expect((await call(t, reader.headers, 'POST', `/api/v1/books/${books.body.data[0]!.id}/read`)).status).toBe(200);
    const after = await seriesPage(reader.headers);
    expect(after.body.data.find((s) => s.id === series.id)!.books_read_count).toBe(1);
  });

  it("gives each user their own answer, and each credential of one user the user's", async () => {
    const other = await createUser(t, 'reader');
    const mine = (await seriesPage(reader.headers)).body.data.find((s) => s.name === 'Batman')!;
    const theirs = (await seriesPage(other.headers)).body.data.find((s) => s.name === 'Batman')!;
    expect(mine.books_read_count).toBe(1);
    expect(theirs.books_read_count).toBe(0);
    const key = await createApiKey(t, reader.headers);
    const byKey = (await seriesPage({ 'x-api-key': key.key })).body.data.find((s) => s.name === 'Batman')!;
    expect(byKey.books_read_count).toBe(1);
  });

  it('answers another query or another body afresh', async () => {
    const paged = await seriesPage(reader.headers, '/api/v1/series?pageSize=2');
    expect(paged.body.data).toHaveLength(2);
    const search = async (query: string) =>
      (await call<Paged<SeriesRow>>(t, reader.headers, 'POST', '/api/v1/series/search', { query })).body.data.map((s) => s.name);
    expect(await search('batman')).toEqual(['Batman']);
    expect(await search('batman')).toEqual(['Batman']);
    expect(await search('astérix')).toEqual(['Astérix']);
  });

  it('sees a change made through another connection to the database on the next request', async () => {
    const before = await seriesPage(reader.headers);
    const series = before.body.data.find((s) => s.name === 'Batman')!;
    await writeThroughAnotherConnection(t.config, [['UPDATE series SET name = $1 WHERE id = $2', ['Batman Renamed', series.id]]]);
    const after = await seriesPage(reader.headers);
    expect(after.body.data.find((s) => s.id === series.id)!.name).toBe('Batman Renamed');
  });

  it('refuses a caller whose access was taken away, whatever was kept for it', async () => {
    const gone = await createUser(t, 'reader');
    await seriesPage(gone.headers);
    await seriesPage(gone.headers);
    expect((await api(t, 'PATCH', `/api/v1/users/${gone.id}`, { disabled: true })).status).toBe(200);
    expect((await call(t, gone.headers, 'GET', '/api/v1/series?pageSize=50')).status).toBe(401);
  });

  it('does not keep an answer computed for a caller whose access changed while its request arrived', async () => {
    const member = await createUser(t, 'reader');
    const url = '/api/v1/series/list?pageSize=50';
    const list = async () => (await call<Paged<SeriesRow>>(t, member.headers, 'POST', url, {})).body.total;
    const visible = await list();
    expect(visible).toBeGreaterThan(0);
    // The request began before the change, so it answers with the access the member had then...
    const inFlight = await postWithLateBody(member.headers, url, '{}', async () => {
      expect((await api(t, 'PATCH', `/api/v1/users/${member.id}`, { library_access: { all: false, library_ids: [] } })).status).toBe(200);
    });
    expect(inFlight.total).toBe(visible);
    // ...and that answer is not kept for the requests that come after it.
    expect(await list()).toBe(0);
    expect(await list()).toBe(0);
    expect((await seriesPage(member.headers)).body.total).toBe(0);
  });
});
