/**
 * Backups (issue 52): a household's server backed up while it runs, restored into an empty database — of the other
 * engine when the tests run on PostgreSQL — answers every route as before; damaged files and populated databases are
 * refused before anything changes; `copy` moves a database between engines and checks every table.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase, type Database } from '../../src/db/connection.js';
import type { App } from '../../src/http/types.js';
import { BackupFileError, digest, readArchive, writeArchive, type Manifest } from '../../src/operations/backups/archive.js';
import { backupService, copyCommand, tableDigests, targetConfig } from '../../src/operations/backups/commands.js';
import { BackupRepository, BATCH } from '../../src/operations/backups/repository.js';
import { BackupService, RestoreRefused } from '../../src/operations/backups/service.js';
import { migrationNames } from '../../src/db/migrate.js';
import { databaseAt } from '../helpers/migrations.js';
import { createTestDatabase } from '../helpers/app.js';
import { ADMIN, createApiKey } from '../helpers/auth.js';
import { pgAdminSettings, testDatabaseType } from '../helpers/config.js';
import { createHouseholdUser, type HouseholdUser } from '../helpers/household.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { OidcRepository } from '../../src/identity/oidc/repository.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { makeCbz } from '../media/fixtures.js';
import { formBody } from '../read-lists/helpers.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, waitForTask, type CatalogTestApp } from '../scanner/helpers.js';

/** A 2 MB tmpfs for the disk-full case; mounting needs root with CAP_SYS_ADMIN, elsewhere that test is skipped. */
function mountTmpfs(): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = makeTempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    return null;
  }
}
const tmpfs = mountTmpfs();

let t: CatalogTestApp;
let reader: HouseholdUser;
let bookId: string;
let seriesId: string;
let sagaFile: string;
let libraryFolder: string;
let document: string;
let file: string;
const drops: Array<() => Promise<void>> = [];
const apps: App[] = [];

/** The other engine's empty database when the tests run on PostgreSQL (SQLite is always at hand); else SQLite again. */
async function emptyTarget(engine: 'other' | 'same' = 'other'): Promise<{ config: Config; database: Database }> {
  const dir = makeTempDir();
  const target = await createTestDatabase(
    testDatabaseType() === 'postgres' && engine === 'other'
      ? { data_dir: dir, database: { type: 'sqlite', path: path.join(dir, 'restored.db') } }
      : { data_dir: dir },
  );
  drops.push(async () => {
    await target.database.close().catch(() => undefined);
    await target.drop();
  });
  return target;
}

beforeAll(async () => {
  t = await createCatalogApp();
  const dir = libraryDir();
  libraryFolder = dir;
  await makeCbz(path.join(dir, 'Saga'), 'Saga 001.cbz', { pages: 3, noise: true });
  sagaFile = await makeCbz(path.join(dir, 'Saga'), 'Saga 002.cbz', { pages: 3, noise: true });
  const library = await createLibrary(t, dir);
  await scan(t, library.id);
  const books = await api<{ data: { id: string; series_id: string }[] }>(t, 'GET', '/api/v1/books?pageSize=50');
  bookId = books.body.data[0]!.id;
  seriesId = books.body.data[0]!.series_id;
  // kobo-sync is no role's: an administrator grants it (docs/decisions/040).
  reader = await createHouseholdUser(t, { permissions: ['kobo-sync'] });
  // What a rescan cannot rebuild: a reading position with its history, a collection, a metadata fix and its lock, a chosen cover.
  for (const page of [2, 3]) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/books/${bookId}/progress`,
      headers: reader.jwt,
      payload: { current_page: page },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  expect((await api(t, 'POST', '/api/v1/collections', { name: 'Space operas', shared: true, series_ids: [seriesId] })).status).toBe(201);
  expect((await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { summary: 'Our own words.' })).status).toBe(200);
  expect((await api(t, 'PUT', `/api/v1/series/${seriesId}/cover`, { book_id: bookId, page: 2 })).status).toBe(200);
  // The devices' state: KOReader's position of a document, a Kobo's choice of shelves, a link to an identity provider.
  const kosync = koreaderClient(t, reader.username, `/koreader/${reader.apiKey}`);
  document = koreaderPartialMd5(sagaFile);
  const pushed = await kosync('PUT', '/syncs/progress', {
    document,
    progress: '2',
    percentage: 0.6667,
    device: 'Kobo Libra 2',
    device_id: 'KOBO-1',
  });
  expect(pushed.status).toBe(200);
  const koboKey = await createApiKey(t, reader.jwt, {
    name: 'Kobo Libra 2',
    permissions: ['kobo-sync', 'books-read', 'pages-read', 'progress-read', 'progress-write'],
  });
  expect(
    (await t.app.inject({ method: 'PUT', url: `/api/v1/me/kobo/${koboKey.id}`, headers: reader.jwt, payload: { want_to_read: true } }))
      .statusCode,
  ).toBe(200);
  const provider = await api(t, 'POST', '/api/v1/admin/oidc/providers', {
    id: 'household-idp',
    name: 'Household sign-in',
    issuer: 'https://id.example.org',
    client_id: 'colophon',
    client_secret: 'kept-in-the-backup',
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  await new OidcRepository(t.database.db).insertLink({
    provider_id: 'household-idp',
    subject: 'reader-sub-1',
    user_id: reader.id,
    email: `${reader.username}@example.org`,
    created_at: new Date().toISOString(),
    last_login_at: null,
  });
  file = path.join(makeTempDir(), 'household.tar.gz');
  await backupService(t.config, t.database).backup(file);
}, 60_000);

afterAll(async () => {
  if (tmpfs) execFileSync('umount', ['-l', tmpfs], { stdio: 'ignore' });
  for (const app of apps) await app.close();
  for (const drop of drops) await drop();
  await t?.close();
});

/** What a client sees: the same requests to both servers. */
const ROUTES = (ids: { book: string; series: string }) => [
  '/api/v1/series?pageSize=50',
  '/api/v1/books?pageSize=50',
  `/api/v1/series/${ids.series}`,
  `/api/v1/books/${ids.book}`,
  `/api/v1/books/${ids.book}/progress`,
  `/api/v1/books/${ids.book}/progress/history`,
  '/api/v1/collections',
  `/api/v1/series/${ids.series}/cover`,
  `/api/v1/series/${ids.series}/history`,
  '/api/v1/libraries',
];

/** A backup file made again with its manifest changed (and entries added): a file from another version, or a forged one. */
async function repack(from: string, change: (m: Manifest) => Manifest, extra: Array<{ name: string; file: string }> = []): Promise<string> {
  const dir = makeTempDir();
  const manifest = await readArchive(from, dir);
  const out = path.join(makeTempDir(), 'repacked.tar.gz');
  const entries = [
    ...Object.keys(manifest.tables).map((n) => ({ name: `tables/${n}.ndjson`, file: path.join(dir, 'tables', `${n}.ndjson`) })),
    ...Object.keys(manifest.files).map((n) => ({ name: `files/${n}`, file: path.join(dir, 'files', n) })),
    ...extra,
  ];
  await writeArchive(out, entries, change(manifest));
  return out;
}

describe('A backup', () => {
  it('is one file whose manifest counts and checks every table, with the chosen cover and no derived data', async () => {
    const manifest = await backupService(t.config, t.database).inspect(file);
    expect(manifest).toMatchObject({ format: 'colophon-backup', engine: testDatabaseType() === 'postgres' ? 'postgres' : 'sqlite' });
    expect(manifest.tables.users!.rows).toBeGreaterThanOrEqual(2);
    expect(manifest.tables.read_progress!.rows).toBeGreaterThanOrEqual(1);
    expect(manifest.tables.progress_events!.rows).toBeGreaterThanOrEqual(2);
    expect(Object.keys(manifest.tables)).not.toContain('metadata_responses');
    expect(Object.keys(manifest.tables).some((n) => /fts|_search$|search_docs/.test(n))).toBe(false);
    expect(Object.keys(manifest.files).some((f) => f.startsWith('covers/'))).toBe(true);
    // Written under its name only when complete: nothing else beside it.
    expect(readdirSync(path.dirname(file))).toEqual(['household.tar.gz']);
  });

  it('restored into an empty database (the other engine on a PostgreSQL run) answers every route as before, keys included', async () => {
    const target = await emptyTarget();
    await backupService(target.config, target.database).restore(file);
    const restored = await buildApp({ config: target.config, database: target.database, logger: false });
    apps.push(restored);
    await restored.ready();
    const login = async (app: App) =>
      (
        await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: ADMIN.username, password: ADMIN.password } })
      ).json<{
        access_token: string;
      }>().access_token;
    const [before, after] = [await login(t.app), await login(restored)];
    for (const url of ROUTES({ book: bookId, series: seriesId })) {
      const a = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${before}` } });
      const b = await restored.inject({ method: 'GET', url, headers: { authorization: `Bearer ${after}` } });
      expect(b.statusCode, url).toBe(a.statusCode);
      expect(b.json(), url).toEqual(a.json());
    }
    // As the reader, by the same API key on both: their series counts (rebuilt on SQLite), shelves and positions.
    for (const url of [
      `/api/v1/series/${seriesId}`,
      '/api/v1/series?pageSize=50',
      `/api/v1/books/${bookId}/progress/history`,
      '/api/v1/me/kobo',
      '/api/v1/me/devices',
      '/api/v1/auth/oidc/links',
    ]) {
      const a = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': reader.apiKey } });
      const b = await restored.inject({ method: 'GET', url, headers: { 'x-api-key': reader.apiKey } });
      expect(b.statusCode, url).toBe(200);
      expect(b.json(), url).toEqual(a.json());
    }
    // KOReader asks the restored server for its document's position, as before.
    const [kosyncBefore, kosyncAfter] = [t, { app: restored } as unknown as CatalogTestApp].map((app) =>
      koreaderClient(app, reader.username, `/koreader/${reader.apiKey}`)('GET', `/syncs/progress/${document}`),
    );
    const [kb, ka] = [await kosyncBefore!, await kosyncAfter!];
    expect(ka.status).toBe(200);
    expect(ka.body).toEqual(kb.body);
    expect(ka.body).toMatchObject({ document, progress: '2', device: 'Kobo Libra 2' });
    // The reader's API key still opens their account; their position is theirs.
    const progress = await restored.inject({
      method: 'GET',
      url: `/api/v1/books/${bookId}/progress`,
      headers: { 'x-api-key': reader.apiKey },
    });
    expect(progress.statusCode).toBe(200);
    expect(progress.json()).toMatchObject({ current_page: 3 });
    // The chosen cover's picture came back into data_dir.
    const cover = await restored.inject({
      method: 'GET',
      url: `/api/v1/series/${seriesId}/thumbnail`,
      headers: { authorization: `Bearer ${after}` },
    });
    expect(cover.statusCode).toBe(200);
    expect(existsSync(path.join(target.config.data_dir, 'covers'))).toBe(true);
  });

  it('of an older schema restores into that schema and is migrated, answering as before', async () => {
    // The household as an installation of 0024 held it: that version's tables and columns, the same rows.
    const known = migrationNames();
    const version = '0024_kobo_delivery_problem';
    expect(known.indexOf(version)).toBeLessThan(known.length - 1);
    const old = await databaseAt(version);
    drops.push(old.drop);
    const [from, to] = [new BackupRepository(t.database), new BackupRepository(old.database)];
    await from.snapshot(async (src) => {
      await to.write(async (dst) => {
        for (const table of await to.tables(dst)) {
          const kept = new Set(await from.columns(src, table));
          const columns = (await to.columns(dst, table)).filter((c) => kept.has(c));
          for (let offset = 0; ; offset += BATCH) {
            const rows = await from.rows(src, table, columns, offset);
            await to.insert(
              dst,
              table,
              rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]]))),
            );
            if (rows.length < BATCH) break;
          }
        }
      });
    });
    const oldFile = path.join(makeTempDir(), 'older.tar.gz');
    const manifest = await new BackupService({ repo: to, dataDir: t.config.data_dir, productVersion: '0.24.0' }).backup(oldFile);
    expect(manifest.schema_version).toBe(version);
    expect(Object.keys(manifest.tables)).not.toContain('metadata_reviews');

    // Into the same engine: the schema is rebuilt there (PostgreSQL's on a PostgreSQL run).
    const target = await emptyTarget('same');
    await backupService(target.config, target.database).restore(oldFile);
    expect(await new BackupRepository(target.database).schemaVersion()).toBe(known.at(-1));
    const restored = await buildApp({ config: target.config, database: target.database, logger: false });
    apps.push(restored);
    await restored.ready();
    for (const url of ROUTES({ book: bookId, series: seriesId })) {
      const a = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': reader.apiKey } });
      const b = await restored.inject({ method: 'GET', url, headers: { 'x-api-key': reader.apiKey } });
      expect(b.statusCode, url).toBe(a.statusCode);
      expect(b.json(), url).toEqual(a.json());
    }
    // A backup from a newer Colophon (its manifest names a schema this server does not know) is refused before anything changes.
    const newer = await repack(file, (m) => ({ ...m, schema_version: '9999_from_a_newer_colophon' }));
    const before = await tableDigests(target.database);
    await expect(backupService(target.config, target.database).restore(newer, { replace: true })).rejects.toThrow(/newer than this server/);
    expect(await tableDigests(target.database)).toEqual(before);
    // An older backup that fails once its schema is rebuilt (it names a table that version never had) changes nothing either:
    // the rebuild, the rows and the migrations are one transaction.
    const empty = path.join(makeTempDir(), 'empty.ndjson');
    writeFileSync(empty, '');
    const sha256 = (await digest(empty)).sha256;
    const odd = await repack(oldFile, (m) => ({ ...m, tables: { ...m.tables, never_a_table: { rows: 0, sha256, order: 999 } } }), [
      { name: 'tables/never_a_table.ndjson', file: empty },
    ]);
    await expect(backupService(target.config, target.database).restore(odd, { replace: true, safetyDir: makeTempDir() })).rejects.toThrow(
      /tables this server does not have: never_a_table/,
    );
    expect(await tableDigests(target.database)).toEqual(before);
    expect(await new BackupRepository(target.database).schemaVersion()).toBe(known.at(-1));
  });

  it('is refused, damaged or truncated, with a reason, before anything is changed', async () => {
    const target = await emptyTarget();
    const service = backupService(target.config, target.database);
    const truncated = path.join(makeTempDir(), 'truncated.tar.gz');
    copyFileSync(file, truncated);
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
    await expect(service.restore(truncated)).rejects.toThrow(BackupFileError);
    const foreign = path.join(makeTempDir(), 'foreign.tar.gz');
    writeFileSync(foreign, 'not a backup at all');
    await expect(service.restore(foreign)).rejects.toThrow(/cannot be read whole/);
    const digests = await tableDigests(target.database);
    expect(digests.users!.rows).toBe(0);
  });

  it('is not restored over accounts unless asked to replace them, and then what was there is backed up first', async () => {
    const target = await emptyTarget();
    const service = backupService(target.config, target.database);
    await service.restore(file);
    await expect(service.restore(file)).rejects.toThrow(RestoreRefused);
    const safetyDir = makeTempDir();
    const { safety } = await service.restore(file, { replace: true, safetyDir });
    expect(safety && existsSync(safety)).toBe(true);
    // The source has moved on since (sign-ins make sessions): the restored tables hold what the backup holds.
    const manifest = await service.inspect(file);
    const digests = await tableDigests(target.database);
    for (const [table, { rows }] of Object.entries(manifest.tables)) expect(digests[table]!.rows, table).toBe(rows);
  });
});

describe('Administration → Backups', () => {
  it('backs up now as a task, lists the file with its summary, downloads it whole, deletes it; readers are refused', async () => {
    const queued = await api<{ id: string; task_type: string }>(t, 'POST', '/api/v1/admin/backups');
    expect(queued.status).toBe(202);
    expect(queued.body.task_type).toBe('backup');
    const done = await waitForTask(t, queued.body.id);
    expect(done.status, done.error ?? '').toBe('completed');
    const list = await api<{ data: { name: string; size: number; summary: { users: number } | null }[]; last_failure: unknown }>(
      t,
      'GET',
      '/api/v1/admin/backups',
    );
    expect(list.body.last_failure).toBeNull();
    const [newest] = list.body.data;
    expect(newest!.summary!.users).toBeGreaterThanOrEqual(2);
    const download = await t.app.inject({ method: 'GET', url: `/api/v1/admin/backups/${newest!.name}`, headers: t.headers });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/gzip');
    expect(download.rawPayload.length).toBe(newest!.size);
    const asReader = await t.app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: reader.jwt });
    expect(asReader.statusCode).toBe(403);
    expect((await api(t, 'GET', '/api/v1/admin/backups/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
    expect((await api(t, 'DELETE', `/api/v1/admin/backups/${newest!.name}`)).status).toBe(204);
    expect((await api(t, 'GET', `/api/v1/admin/backups/${newest!.name}`)).status).toBe(404);
  });

  it('a backup that cannot be written fails in words, leaves no file, and /health says so until one succeeds', async () => {
    const blocked = path.join(makeTempDir(), 'not-a-folder');
    writeFileSync(blocked, 'a file where the folder should be');
    expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_folder', { value: blocked })).status).toBe(200);
    const queued = await api<{ id: string }>(t, 'POST', '/api/v1/admin/backups');
    const done = await waitForTask(t, queued.body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/The last backup failed/);
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    expect(health.json<{ status: string; reasons: string[] }>()).toMatchObject({
      status: 'degraded',
      reasons: [expect.stringMatching(/backup failed/)],
    });
    expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_folder', { value: '' })).status).toBe(200);
    const again = await api<{ id: string }>(t, 'POST', '/api/v1/admin/backups');
    expect((await waitForTask(t, again.body.id)).status).toBe('completed');
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json<{ status: string }>().status).toBe('ok');
  });

  it.runIf(tmpfs)('on a full disk (a 2 MB tmpfs) fails in words, leaves the older backups whole and no partial file', async () => {
    expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_folder', { value: tmpfs! })).status).toBe(200);
    const first = await api<{ id: string }>(t, 'POST', '/api/v1/admin/backups');
    expect((await waitForTask(t, first.body.id)).status).toBe('completed');
    const [kept] = readdirSync(tmpfs!);
    // A chosen cover larger than what is left on the disk.
    const big = path.join(t.config.data_dir, 'covers', 'zz-too-big');
    mkdirSync(big, { recursive: true });
    writeFileSync(path.join(big, 'cover.webp'), randomBytes(3 * 1024 * 1024));
    try {
      const full = await api<{ id: string }>(t, 'POST', '/api/v1/admin/backups');
      const done = await waitForTask(t, full.body.id);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/disk holding .* is full: free some space \(older backups are intact\)/);
      expect(readdirSync(tmpfs!)).toEqual([kept]);
      await expect(readArchive(path.join(tmpfs!, kept!), makeTempDir())).resolves.toMatchObject({ format: 'colophon-backup' });
      const listed = await api<{ data: { name: string }[] }>(t, 'GET', '/api/v1/admin/backups');
      expect(listed.body.data.map((b) => b.name)).toEqual([kept]);
      const health = (await t.app.inject({ method: 'GET', url: '/health' })).json<{ status: string; reasons: string[] }>();
      expect(health.status).toBe('degraded');
      expect(health.reasons.join(' ')).toMatch(/is full/);
    } finally {
      rmSync(big, { recursive: true, force: true });
      expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_folder', { value: '' })).status).toBe(200);
    }
    const again = await api<{ id: string }>(t, 'POST', '/api/v1/admin/backups');
    expect((await waitForTask(t, again.body.id)).status).toBe('completed');
  });

  it('the schedule is a setting, checked as a cron expression', async () => {
    expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_schedule', { value: 'every night' })).status).toBe(400);
    expect((await api(t, 'PUT', '/api/v1/admin/settings/backup_schedule', { value: '30 2 * * *' })).status).toBe(200);
    await expect.poll(() => t.app.background.scheduler.get('backups')?.expression).toBe('30 2 * * *');
  });
});

describe('Restore from the first-run screen', () => {
  it('takes an uploaded backup while no account exists, reports a missing library folder, then refuses', async () => {
    const target = await emptyTarget();
    const fresh = await buildApp({ config: target.config, database: target.database, logger: false });
    apps.push(fresh);
    await fresh.ready();
    const junk = await formBody({}, { data: 'not a backup', name: 'junk.tar.gz' });
    const refused = await fresh.inject({ method: 'POST', url: '/api/v1/setup/restore', ...junk });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ error: 'UnprocessableEntity', message: expect.stringContaining('refused') });

    const form = await formBody({}, { data: readFileSync(file), name: 'household.tar.gz' });
    const restored = await fresh.inject({ method: 'POST', url: '/api/v1/setup/restore', ...form });
    expect(restored.statusCode, restored.body).toBe(200);
    const body = restored.json<{ restored: { rows: number }; libraries: { path: string; present: boolean }[] }>();
    expect(body.restored.rows).toBeGreaterThan(0);
    // The library folder exists on this machine (the same temp folder): present; a moved disk would say false.
    expect(body.libraries).toEqual([expect.objectContaining({ present: true })]);
    const login = await fresh.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: reader.username, password: reader.password },
    });
    expect(login.statusCode).toBe(200);
    expect((await fresh.inject({ method: 'GET', url: '/api/v1/setup/status' })).json()).toMatchObject({ setup_required: false });
    const again = await fresh.inject({ method: 'POST', url: '/api/v1/setup/restore', ...form });
    expect(again.statusCode).toBe(409);
  });
});

describe('A restore on a machine where the library folder is elsewhere', () => {
  it('reports the folder missing; a scan then keeps every book; pointed at the new folder, the books and positions are the same', async () => {
    // The backup as another machine made it: its library at a path this one does not have.
    const unpacked = makeTempDir();
    const manifest = await readArchive(file, unpacked);
    const libraries = path.join(unpacked, 'tables', 'libraries.ndjson');
    const rows = readFileSync(libraries, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { path: string });
    writeFileSync(libraries, rows.map((r) => `${JSON.stringify({ ...r, path: '/mnt/old-disk/comics' })}\n`).join(''));
    const movedFile = path.join(makeTempDir(), 'moved.tar.gz');
    await writeArchive(
      movedFile,
      [
        ...Object.keys(manifest.tables).map((n) => ({ name: `tables/${n}.ndjson`, file: path.join(unpacked, 'tables', `${n}.ndjson`) })),
        ...Object.keys(manifest.files).map((n) => ({ name: `files/${n}`, file: path.join(unpacked, 'files', n) })),
      ],
      {
        ...manifest,
        tables: { ...manifest.tables, libraries: { ...manifest.tables.libraries!, sha256: (await digest(libraries)).sha256 } },
      },
    );

    const target = await emptyTarget();
    const fresh = await buildApp({ config: target.config, database: target.database, logger: false });
    apps.push(fresh);
    await fresh.ready();
    await fresh.background.start();
    const restored = await fresh.inject({
      method: 'POST',
      url: '/api/v1/setup/restore',
      ...(await formBody({}, { data: readFileSync(movedFile), name: 'moved.tar.gz' })),
    });
    expect(restored.statusCode, restored.body).toBe(200);
    const [library] = restored.json<{ libraries: { id: string; path: string; present: boolean }[] }>().libraries;
    expect(library).toMatchObject({ path: '/mnt/old-disk/comics', present: false });
    const token = (
      await fresh.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: ADMIN.username, password: ADMIN.password } })
    ).json<{ access_token: string }>().access_token;
    const as = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
      fresh.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    const listed = async () =>
      (await as('GET', '/api/v1/books?pageSize=50'))
        .json<{ data: { id: string }[] }>()
        .data.map((b) => b.id)
        .sort();
    const before = await listed();
    expect(before).toHaveLength(2);
    const settle = async (res: { statusCode: number; json<T>(): T; body: string }) => {
      if (res.statusCode !== 202) return res.statusCode;
      const id = res.json<{ id: string }>().id;
      for (;;) {
        const task = (await as('GET', `/api/v1/tasks/${id}`)).json<{ status: string }>();
        if (!['pending', 'queued', 'running'].includes(task.status)) return task.status;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // A scan of the missing folder changes nothing: no book is soft-deleted because a disk is mounted elsewhere.
    await settle(await as('POST', `/api/v1/libraries/${library!.id}/scan`));
    expect(await listed()).toEqual(before);
    // Pointed at its folder here, it scans to the same books, the reader's position still on them.
    expect((await as('PATCH', `/api/v1/libraries/${library!.id}`, { path: libraryFolder })).statusCode).toBe(200);
    expect(await settle(await as('POST', `/api/v1/libraries/${library!.id}/scan`))).toBe('completed');
    expect(await listed()).toEqual(before);
    const progress = await fresh.inject({
      method: 'GET',
      url: `/api/v1/books/${bookId}/progress`,
      headers: { 'x-api-key': reader.apiKey },
    });
    expect(progress.json()).toMatchObject({ current_page: 3 });
  });
});

describe("A person's own export", () => {
  it('holds their positions, history, lists and preferences; an admin exports any user as that user sees', async () => {
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/read-lists',
          headers: reader.jwt,
          payload: { name: 'My picks', book_ids: [bookId] },
        })
      ).statusCode,
    ).toBe(201);
    const mine = await t.app.inject({ method: 'GET', url: '/api/v1/me/export', headers: reader.jwt });
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.headers['content-disposition']).toContain(`colophon-${reader.username}.json`);
    const body = mine.json<{
      user: { id: string };
      progress: { book: { id: string }; current_page: number }[];
      history: { book_id: string; events: unknown[] }[];
      read_lists: { name: string; cbl: string }[];
    }>();
    expect(body.user.id).toBe(reader.id);
    // Their page 3 of one book; KOReader's page 2 of the other.
    expect(body.progress).toHaveLength(2);
    expect(body.progress).toContainEqual(expect.objectContaining({ book: expect.objectContaining({ id: bookId }), current_page: 3 }));
    expect(body.history.find((h) => h.book_id === bookId)!.events.length).toBeGreaterThanOrEqual(2);
    expect(body.read_lists).toEqual([expect.objectContaining({ name: 'My picks', cbl: expect.stringContaining('<ReadingList') })]);
    const byAdmin = await api(t, 'GET', `/api/v1/users/${reader.id}/export`);
    expect(byAdmin.status).toBe(200);
    expect((byAdmin.body as { user: { id: string } }).user.id).toBe(reader.id);
    // What the reader may no longer see is absent from their export, whoever asks for it.
    expect((await api(t, 'PATCH', `/api/v1/users/${reader.id}`, { library_access: { all: false, library_ids: [] } })).status).toBe(200);
    const hidden = await api<{ progress: unknown[]; read_lists: { cbl: string }[] }>(t, 'GET', `/api/v1/users/${reader.id}/export`);
    expect(hidden.body.progress).toEqual([]);
    expect(JSON.stringify(hidden.body)).not.toContain(bookId);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/users/${reader.id}/export`, headers: reader.jwt })).statusCode).toBe(403);
    expect((await api(t, 'GET', '/api/v1/users/00000000-0000-4000-8000-000000000000/export')).status).toBe(404);
  });
});

describe('colophon copy', () => {
  it('moves the database to SQLite (from PostgreSQL on a PostgreSQL run) and back, every table checked', async () => {
    const sqliteFile = path.join(makeTempDir(), 'copied.db');
    const there = await copyCommand(t.config, `sqlite:${sqliteFile}`);
    expect(there, there.message).toMatchObject({ code: 0, message: expect.stringContaining("every table's rows and checksum match") });
    if (testDatabaseType() !== 'postgres') return;
    const back = await createTestDatabase();
    drops.push(back.drop);
    await back.database.close();
    const pg = pgAdminSettings();
    const url = `postgres://${pg.user}:${pg.password}@${pg.host}:${pg.port}/${back.config.database.name}`;
    const sqliteConfig: Config = { ...t.config, database: { ...t.config.database, type: 'sqlite', path: sqliteFile } };
    const again = await copyCommand(sqliteConfig, url);
    expect(again, again.message).toMatchObject({ code: 0 });
  });

  it('refuses a target that is neither sqlite: nor postgres://', () => {
    expect(() => targetConfig(t.config, 'mysql://x')).toThrow(/--to must be/);
  });
});

describe('A backup taken while 20 clients write progress', () => {
  it('is one consistent snapshot: every position matches its last history event, nothing torn, every write before it kept', async () => {
    const books = (await api<{ data: { id: string }[] }>(t, 'GET', '/api/v1/books?pageSize=50')).body.data.map((b) => b.id);
    const users = await Promise.all(Array.from({ length: 10 }, () => createHouseholdUser(t)));
    // 20 clients, each its own (person, book), each moving a page at a time for as long as the backup runs.
    const clients = users.flatMap((u) => books.slice(0, 2).map((book) => ({ user: u, book, page: 0, acked: 0 })));
    expect(clients).toHaveLength(20);
    let writing = true;
    const writers = clients.map(async (c) => {
      while (writing) {
        c.page += 1;
        const res = await t.app.inject({
          method: 'PUT',
          url: `/api/v1/books/${c.book}/progress`,
          headers: { 'x-api-key': c.user.apiKey },
          payload: { current_page: (c.page % 3) + 1 },
        });
        expect(res.statusCode, res.body).toBe(200);
        c.acked = c.page;
        // A reader turns pages, not a tight loop: the backup gets its share of the one thread.
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    // Let every client write before the backup starts; it reads on its own connection, as the scheduled backup does.
    while (clients.some((c) => c.acked < 2)) await new Promise((r) => setTimeout(r, 5));
    const ackedBefore = clients.map((c) => c.acked);
    const own = openDatabase(t.config);
    const out = path.join(makeTempDir(), 'busy.tar.gz');
    try {
      await new BackupService({ repo: new BackupRepository(own), dataDir: t.config.data_dir, productVersion: 'test' }).backup(out);
    } finally {
      await own.close();
    }
    const ackedAfter = clients.map((c) => c.acked);
    writing = false;
    await Promise.all(writers);
    expect(ackedAfter.reduce((a, b) => a + b, 0)).toBeGreaterThan(ackedBefore.reduce((a, b) => a + b, 0));

    const dir = makeTempDir();
    await readArchive(out, dir);
    const lines = <T>(table: string): T[] =>
      readFileSync(path.join(dir, 'tables', `${table}.ndjson`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T);
    const positions = lines<{ user_id: string; book_id: string; current_page: number; updated_at: string }>('read_progress');
    const events = lines<{ user_id: string; book_id: string; page: number; received_at: string; applied: number; id: string }>(
      'progress_events',
    );
    for (const [i, c] of clients.entries()) {
      const mine = events.filter((e) => e.user_id === c.user.id && e.book_id === c.book && e.applied === 1);
      const position = positions.find((p) => p.user_id === c.user.id && p.book_id === c.book);
      // Every write acknowledged before the backup began is in it; none acknowledged after it ended could be.
      expect(mine.length, `client ${i}`).toBeGreaterThanOrEqual(ackedBefore[i]!);
      expect(mine.length, `client ${i}`).toBeLessThanOrEqual(ackedAfter[i]!);
      // The position is the one its last event set: the two tables were read in the same instant.
      const last = mine.reduce((a, b) => (b.received_at > a.received_at || (b.received_at === a.received_at && b.id > a.id) ? b : a));
      expect(position, `client ${i}`).toBeDefined();
      expect(position!.updated_at, `client ${i}`).toBe(last.received_at);
      expect(position!.current_page, `client ${i}`).toBe(last.page);
    }
  }, 120_000);
});
