import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase } from '../helpers/app.js';
import { makeTempDir, testConfig, testDatabaseType } from '../helpers/config.js';

let server: RunningServer | undefined;
let drop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.stop();
  await drop?.();
  server = undefined;
  drop = undefined;
});

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** A config whose data_dir does not exist yet, so the server creates it (and, on SQLite, the database in it). */
async function freshServerConfig() {
  const dataDir = path.join(makeTempDir(), 'nested', 'data');
  const base = { data_dir: dataDir, server: { host: '127.0.0.1', port: 0 }, auth: { jwt_secret: undefined } };
  if (testDatabaseType() === 'postgres') {
    const created = await createTestDatabase();
    await created.database.close();
    drop = created.drop;
    return { ...created.config, ...testConfig(base), database: created.config.database, data_dir: dataDir };
  }
  const config = testConfig(base);
  return { ...config, database: { ...config.database, path: undefined } };
}

describe('files the server creates are private to its user', () => {
  it('data_dir is created 0700, colophon.db and its WAL 0600, the generated JWT secret 0600', async () => {
    const config = await freshServerConfig();
    server = await startServer(config);
    // A login makes the database write (WAL) and the JWT secret be generated.
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/setup/initialize',
      payload: { username: 'admin', email: 'a@example.org', password: 'password-123' },
    });
    expect(res.statusCode).toBe(201);
    expect(modeOf(config.data_dir)).toBe(0o700);
    expect(modeOf(path.join(config.data_dir, 'jwt-secret'))).toBe(0o600);
    if (testDatabaseType() === 'sqlite') {
      expect(modeOf(path.join(config.data_dir, 'colophon.db'))).toBe(0o600);
      expect(modeOf(path.join(config.data_dir, 'colophon.db-wal'))).toBe(0o600);
    }
  });

  it.runIf(testDatabaseType() === 'sqlite')(
    'a world-readable colophon.db left by an older version is tightened to 0600 on start',
    async () => {
      const config = await freshServerConfig();
      const file = path.join(makeTempDir(), 'old.db');
      writeFileSync(file, '', { mode: 0o644 });
      expect(modeOf(file)).toBe(0o644);
      server = await startServer({ ...config, database: { ...config.database, path: file } });
      expect((await server.app.inject({ method: 'GET', url: '/api/v1/setup/status' })).statusCode).toBe(200);
      expect(modeOf(file)).toBe(0o600);
    },
  );
});
