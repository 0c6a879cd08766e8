import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeTempDir, testDatabaseType } from '../helpers/config.js';
import { makeCbz } from '../media/fixtures.js';

/**
 * The same promises as disk-full.test.ts on a really full disk: data_dir (with the SQLite database) on an 8 MB
 * tmpfs filled to the last byte. Mounting needs root with CAP_SYS_ADMIN; elsewhere this file is skipped and
 * disk-full.test.ts (injected faults) covers the rules.
 */
function mountTmpfs(): string | null {
  if (testDatabaseType() !== 'sqlite' || process.getuid?.() !== 0) return null;
  const dir = makeTempDir('colophon-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return null;
  }
}
const mounted = mountTmpfs();

describe.runIf(mounted)('data_dir on a full tmpfs', () => {
  let t: CatalogTestApp;
  let reader: Awaited<ReturnType<typeof createUser>>;
  let bookId: string;
  beforeAll(async () => {
    const dataDir = path.join(mounted!, 'data');
    t = await createCatalogApp({ data_dir: dataDir, database: { type: 'sqlite', path: path.join(dataDir, 'colophon.db') } });
    await scannedLibrary(t, (d) => makeCbz(d, 'Full 001.cbz', { pages: 2, pageSize: { width: 60, height: 90 } }).then(() => undefined));
    bookId = (await t.app.inject({ method: 'GET', url: '/api/v1/books', headers: t.headers })).json<Paged<{ id: string }>>().data[0]!.id;
    reader = await createUser(t, 'reader');
    // An empty WAL must grow for the next commit; then every byte of the volume is taken.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(t.database.db);
    for (let i = 0; ; i++) {
      try {
        writeFileSync(path.join(mounted!, `filler-${i}`), Buffer.alloc(i < 64 ? 256 * 1024 : 512));
      } catch {
        break;
      }
    }
  });
  afterAll(async () => {
    await t?.close();
    execFileSync('umount', ['-l', mounted!], { stdio: 'ignore' });
  });

  it('/health degraded, progress write 507, login 200, thumbnail 200', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.json()).toMatchObject({ status: 'degraded', checks: { disk: 'low' } });

    const write = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/books/${bookId}/progress`,
      headers: reader.headers,
      payload: { current_page: 2, is_completed: false },
    });
    expect(write.statusCode, write.body).toBe(507);
    expect(write.json().error).toBe('InsufficientStorage');

    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: reader.username, password: reader.password },
    });
    expect(login.statusCode, login.body).toBe(200);

    const thumb = await t.app.inject({ method: 'GET', url: `/api/v1/books/${bookId}/thumbnail`, headers: reader.headers });
    expect(thumb.statusCode, thumb.body).toBe(200);
    expect(thumb.headers['content-type']).toMatch(/^image\//);
  });
});
