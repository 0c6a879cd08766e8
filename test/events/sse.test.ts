import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { createTestApp, createTestDatabase, type TestApp } from '../helpers/app.js';
import { buildApp } from '../../src/app.js';
import { postgresOnly, testDatabaseType } from '../helpers/config.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { connect, until } from '../helpers/sse-client.js';

const ENTITY = [
  'library_created',
  'library_updated',
  'library_deleted',
  'series_created',
  'series_updated',
  'series_deleted',
  'book_created',
  'book_updated',
  'book_deleted',
  'cover_updated',
];

describe('Event streams over SSE', () => {
  let t: CatalogTestApp;
  let base: string;
  beforeAll(async () => {
    t = await createCatalogApp({ events: { keepalive_seconds: 0.2 } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it('requires authentication', async () => {
    const res = await fetch(`${base}/api/v1/events/stream`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeTruthy();
  });

  it('sends each entity event of a scan with the spec payload (type, book_id, series_id, library_id, timestamp)', async () => {
    const client = connect(base, '/api/v1/events/stream', t.headers, ENTITY);
    await client.opened;
    const dir = libraryDir();
    await makeCbz(dir, 'Saga 001.cbz', { pages: 2 });
    const library = await createLibrary(t, dir);
    await scan(t, library.id);
    await until(() => client.frames.some((f) => f.event === 'book_created'));
    client.source.close();
    const byName = (n: string) => client.frames.filter((f) => f.event === n);
    expect(byName('library_created')[0]!.data).toEqual({ type: 'library_created', library_id: library.id, timestamp: expect.any(String) });
    const series = byName('series_created')[0]!.data;
    expect(series).toMatchObject({ type: 'series_created', library_id: library.id, series_id: expect.any(String) });
    const book = byName('book_created')[0]!.data;
    expect(book).toEqual({
      type: 'book_created',
      library_id: library.id,
      series_id: series.series_id,
      book_id: expect.any(String),
      timestamp: expect.any(String),
    });
    expect(new Date(book.timestamp as string).toISOString()).toBe(book.timestamp);
  });

  it('sends task_progress frames with increasing current, and scan stream frames', async () => {
    const tasks = connect(base, '/api/v1/tasks/stream', t.headers, ['task_progress']);
    const scans = connect(base, '/api/v1/scans/stream', t.headers, ['scan_started', 'scan_progress', 'scan_completed']);
    await Promise.all([tasks.opened, scans.opened]);
    const dir = libraryDir();
    for (let i = 1; i <= 4; i += 1) await makeCbz(dir, `Book ${i}.cbz`, { pages: 1 });
    const library = await createLibrary(t, dir);
    const done = await scan(t, library.id);
    await until(
      () =>
        scans.frames.some((f) => f.event === 'scan_completed') &&
        tasks.frames.some((f) => f.data.task_id === done.id && f.data.status === 'completed'),
    );
    tasks.source.close();
    scans.source.close();
    const mine = tasks.frames.filter((f) => f.data.task_id === done.id);
    expect(mine[0]!.data).toMatchObject({
      task_id: done.id,
      task_type: 'scan_library',
      progress: { current: expect.any(Number), total: expect.any(Number), message: expect.any(String) },
    });
    expect(mine.some((f) => f.data.status === 'running')).toBe(true);
    const currents = mine.map((f) => (f.data.progress as { current: number }).current);
    expect(currents).toEqual([...currents].sort((a, b) => a - b));
    expect(Math.max(...currents)).toBeGreaterThan(0);
    const completed = scans.frames.find((f) => f.event === 'scan_completed')!.data;
    expect(completed).toMatchObject({ library_id: library.id, files_discovered: 4, files_processed: 4, books_added: 4, errors: 0 });
    expect(scans.frames[0]!.event).toBe('scan_started');
  });

  it('sends a `: keep-alive` comment at the interval', async () => {
    const controller = new AbortController();
    const res = await fetch(`${base}/api/v1/events/stream`, {
      headers: { ...t.headers, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const deadline = Date.now() + 3000;
    while (!text.includes(': keep-alive\n\n') && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain(': keep-alive\n\n');
  });

  it('HEAD answers the headers of each stream at once and keeps no subscription', async () => {
    await until(() => t.app.sse.size === 0);
    const baseline = t.app.events.listenerCount();
    for (const path of ['/api/v1/events/stream', '/api/v1/tasks/stream', '/api/v1/scans/stream']) {
      const res = await fetch(`${base}${path}`, { method: 'HEAD', headers: t.headers, signal: AbortSignal.timeout(3000) });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/event-stream');
    }
    await until(() => t.app.events.listenerCount() === baseline && t.app.sse.size === 0);
    expect(t.app.sse.size).toBe(0);
  });

  it('is exempt from rate limiting (/api/v1/events) and frees every subscription on disconnect (100 cycles)', async () => {
    await api(t, 'PUT', '/api/v1/admin/settings/rate_limit_enabled', { value: true });
    await api(t, 'POST', '/api/v1/admin/settings/bulk', {
      settings: { rate_limit_authenticated_burst: 3, rate_limit_authenticated_rps: 0.1 },
    });
    // Streams of the earlier tests close asynchronously: the baseline is the bus with no SSE client at all.
    await until(() => t.app.sse.size === 0);
    const baseline = t.app.events.listenerCount();
    for (let i = 0; i < 100; i += 1) {
      const controller = new AbortController();
      const res = await fetch(`${base}/api/v1/events/stream`, {
        headers: { ...t.headers, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(res.status, `connection ${i}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      controller.abort();
    }
    await until(() => t.app.events.listenerCount() === baseline && t.app.sse.size === 0);
    expect(t.app.events.listenerCount()).toBe(baseline);
  });

  it('other streams stay rate limited', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const controller = new AbortController();
      const res = await fetch(`${base}/api/v1/tasks/stream`, {
        headers: { ...t.headers, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      codes.push(res.status);
      controller.abort();
    }
    expect(codes).toContain(429);
  });
});

describe.skipIf(testDatabaseType() !== 'postgres')(postgresOnly('LISTEN/NOTIFY bridge on PostgreSQL'), () => {
  let a: TestApp;
  let bBase: string;
  let bEvents: FastifyInstance['events'];
  let closeB: () => Promise<void>;
  beforeAll(async () => {
    const shared = await createTestDatabase();
    a = {
      app: await buildApp({ config: shared.config, database: shared.database, logger: false }),
      config: shared.config,
      database: shared.database,
      close: async () => undefined,
    };
    const { openDatabase } = await import('../../src/db/connection.js');
    const b = await buildApp({ config: shared.config, database: openDatabase(shared.config), logger: false });
    await a.app.startEventBridge();
    await b.startEventBridge();
    bBase = await b.listen({ host: '127.0.0.1', port: 0 });
    bEvents = b.events;
    closeB = async () => {
      await b.close();
      await a.app.close();
      await shared.drop();
    };
  });
  afterAll(() => closeB());

  it('a client on instance B sees an event published by instance A', async () => {
    const { adminHeaders } = await import('../helpers/auth.js');
    const headers = await adminHeaders(a);
    const client = connect(bBase, '/api/v1/events/stream', headers, ['library_created']);
    await client.opened;
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/v1/libraries',
      headers,
      payload: { name: 'Shared', path: libraryDir() },
    });
    expect(res.statusCode).toBe(201);
    await until(() => client.frames.length > 0);
    client.source.close();
    expect(client.frames[0]!.data).toMatchObject({ type: 'library_created', library_id: res.json().id });
  });

  it('a burst of events (a scan publishes one per book) reaches the other instance whole and in order', async () => {
    const received: string[] = [];
    const off = bEvents.on('book_created', (e) => received.push(e.book_id!));
    const sent = Array.from({ length: 500 }, (_, i) => `burst-${String(i).padStart(3, '0')}`);
    const timestamp = new Date().toISOString();
    // All in one turn of the event loop, as a scan's batch publishes them.
    for (const id of sent)
      a.app.events.publish('book_created', { type: 'book_created', library_id: 'burst', series_id: 's', book_id: id, timestamp });
    try {
      await until(() => received.length >= sent.length, 10_000);
      expect(received).toEqual(sent);
    } finally {
      off();
    }
  });
});

void createTestApp;
