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
});
