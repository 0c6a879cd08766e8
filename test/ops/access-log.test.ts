import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { createTestDatabase } from '../helpers/app.js';
import type { DeepPartial } from '../helpers/config.js';

/** The app with its log lines captured, asked for `/health` once. */
async function logLinesOfOneRequest(
  logging: DeepPartial<Config>['logging'],
): Promise<Array<{ level: number; msg: string; statusCode?: number; url?: string }>> {
  const lines: string[] = [];
  const stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()),
  });
  const { config, database, drop } = await createTestDatabase({ logging });
  const app = await buildApp({ config, database, logger: { level: config.logging.level, stream } });
  try {
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    return lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; statusCode?: number; url?: string })
      .filter((l) => l.url === '/health');
  } finally {
    await app.close();
    await drop();
  }
}

describe('The access log (logging.access_log, logging.slow_request_ms)', () => {
  it('is off by default: a quick request writes no line', async () => {
    expect(await logLinesOfOneRequest({ level: 'info' })).toEqual([]);
  });

  it('when on, writes one info line per request with its status and time', async () => {
    const lines = await logLinesOfOneRequest({ level: 'info', access_log: true });
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'request completed', statusCode: 200, responseTime: expect.any(Number) }),
    ]);
  });

  it('logs a request slower than slow_request_ms at warn even when off', async () => {
    const lines = await logLinesOfOneRequest({ level: 'info', slow_request_ms: 0 });
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'slow request', statusCode: 200 })]);
  });

  it('never writes an API key: a KOReader sync URL carries one in its path, logged with its secret hidden', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()),
    });
    const { config, database, drop } = await createTestDatabase({ logging: { level: 'info', access_log: true } });
    const app = await buildApp({ config, database, logger: { level: config.logging.level, stream } });
    const secret = 'S3cretS3cretS3cretS3cretS3cretS3cretS3cr';
    try {
      await app.ready();
      await app.inject({ method: 'GET', url: `/koreader/colophon_AbCd1234_${secret}/syncs/progress/abc` });
      await app.inject({ method: 'GET', url: `/api/v1/books?key=colophon_AbCd1234_${secret}` });
    } finally {
      await app.close();
      await drop();
    }
    const text = lines.join('\n');
    expect(text).not.toContain(secret);
    const urls = lines.map((l) => (JSON.parse(l) as { url?: string }).url).filter((u) => u?.includes('colophon_'));
    expect(urls).toEqual(['/koreader/colophon_AbCd1234_[redacted]/syncs/progress/abc', '/api/v1/books?key=colophon_AbCd1234_[redacted]']);
  });

  it('hides a key however its URL spells it (%5F, %5f, encoded letters, a query parameter), on every carrier, slow or not', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()),
    });
    // slow_request_ms 0: every request also goes through the slow-request warning, the line that leaked.
    const { config, database, drop } = await createTestDatabase({ logging: { level: 'info', slow_request_ms: 0 } });
    const app = await buildApp({ config, database, logger: { level: config.logging.level, stream } });
    const secret = 'Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Z';
    const encodedSecret = [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const spellings = [
      `colophon_AbCd1234_${secret}`,
      `colophon%5FAbCd1234%5F${secret}`,
      `colophon%5fAbCd1234%5f${secret}`,
      `%63olophon_AbCd1234_${secret}`,
      `colophon_AbCd1234_${encodedSecret}`,
    ];
    try {
      await app.ready();
      for (const key of spellings) {
        await app.inject({ method: 'GET', url: `/kobo/${key}/v1/library/sync` });
        await app.inject({ method: 'GET', url: `/koreader/${key}/users/auth` });
        await app.inject({ method: 'GET', url: `/api/v1/series?apikey=${key}` });
      }
      const plain = `colophon_AbCd1234_${secret}`;
      await app.inject({ method: 'GET', url: '/api/v1/series', headers: { 'x-api-key': plain } });
      await app.inject({
        method: 'GET',
        url: '/api/v1/series',
        headers: { authorization: `Basic ${Buffer.from(`u:${plain}`).toString('base64')}` },
      });
    } finally {
      await app.close();
      await drop();
    }
    const text = lines.join('\n');
    expect(lines.filter((l) => l.includes('slow request')).length).toBeGreaterThanOrEqual(spellings.length * 3 + 2);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(encodedSecret);
    expect(text).not.toContain(secret.slice(0, 12));
    const urls = lines.map((l) => (JSON.parse(l) as { url?: string }).url ?? '').filter((u) => u.includes('AbCd1234'));
    expect(urls).toHaveLength(spellings.length * 3);
    for (const url of urls) expect(url).toContain('colophon_AbCd1234_[redacted]');
  });
});
