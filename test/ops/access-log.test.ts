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
      await app.inject({ method: 'GET', url: `/koreader/bindery_AbCd1234_${secret}/syncs/progress/abc` });
      await app.inject({ method: 'GET', url: `/api/v1/books?key=bindery_AbCd1234_${secret}` });
    } finally {
      await app.close();
      await drop();
    }
    const text = lines.join('\n');
    expect(text).not.toContain(secret);
    const urls = lines.map((l) => (JSON.parse(l) as { url?: string }).url).filter((u) => u?.includes('bindery_'));
    expect(urls).toEqual(['/koreader/bindery_AbCd1234_[redacted]/syncs/progress/abc', '/api/v1/books?key=bindery_AbCd1234_[redacted]']);
  });
});
