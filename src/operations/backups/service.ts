import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { nowIso } from '../../db/ids.js';
import { BackupFileError, digest, readArchive, writeArchive, type Manifest } from './archive.js';
import { BATCH, type BackupRepository, type Db } from './repository.js';

export interface BackupProgress {
  /** `table`, `file`, `verify`, `restore` */
  step: string;
  current: number;
  total: number;
  message: string;
}

/** What in `data_dir` cannot be rebuilt: covers people chose, and the secret that opens the stored provider keys. */
const KEPT_IN_DATA_DIR = ['covers', 'metadata-secret'];

/** A value as JSON: bytes as `{"$base64": …}`, big integers as text. */
function portable(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { $base64: value.toString('base64') };
  if (typeof value === 'bigint') return value.toString();
  return value;
}
function fromPortable(value: unknown): unknown {
  if (value && typeof value === 'object' && '$base64' in value)
    return Buffer.from(String((value as { $base64: unknown }).$base64), 'base64');
  return value;
}

async function filesUnder(root: string, dir = ''): Promise<string[]> {
  const here = path.join(root, dir);
  if (!existsSync(here)) return [];
  const out: string[] = [];
  for (const entry of await readdir(here, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** Whether a process of this machine with that id still runs (a backup it was writing may still be under way). */
function running(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const PARTIAL = /^\..+\.partial-(\d+)$/;
const WORK = /^colophon-(?:backup|backup-check|restore)-(\d+)-/;

/**
 * Removes what a backup killed mid-way (kill -9, a power cut) left: its partial file beside the backups and its
 * working folder in the temporary directory. Only a dead process's: another one's backup may still be running.
 */
export async function sweepAbandoned(folder: string): Promise<string[]> {
  const removed: string[] = [];
  for (const [dir, pattern] of [
    [folder, PARTIAL],
    [os.tmpdir(), WORK],
  ] as const) {
    if (!existsSync(dir)) continue;
    for (const name of await readdir(dir)) {
      const pid = pattern.exec(name)?.[1];
      if (!pid || running(Number(pid))) continue;
      await rm(path.join(dir, name), { recursive: true, force: true });
      removed.push(path.join(dir, name));
    }
  }
  return removed;
}

/** A working folder in the temporary directory, named for this process so that a sweep knows whose it is. */
const workDir = (kind: 'backup' | 'backup-check' | 'restore') => mkdtemp(path.join(os.tmpdir(), `colophon-${kind}-${process.pid}-`));

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

/**
 * Backups of what a rescan cannot rebuild (issue 52, docs/backups.md): every portable table as NDJSON from one
 * consistent snapshot, the chosen covers and the provider-key secret, a manifest with row counts and checksums; written
 * under a temporary name, read back and checked, then renamed. Restores check the whole file before changing anything.
 */
export class BackupService {
  constructor(
    private readonly deps: {
      repo: BackupRepository;
      dataDir: string;
      productVersion: string;
    },
  ) {}

  /** Takes a backup into `out` (a `.tar.gz`); the manifest it wrote. */
  async backup(out: string, progress: (p: BackupProgress) => void = () => undefined): Promise<Manifest> {
    const work = await workDir('backup');
    const partial = path.join(path.dirname(path.resolve(out)), `.${path.basename(out)}.partial-${process.pid}`);
    await sweepAbandoned(path.dirname(path.resolve(out)));
    try {
      const entries: Array<{ name: string; file: string }> = [];
      const manifest: Manifest = {
        format: 'colophon-backup',
        format_version: 1,
        product_version: this.deps.productVersion,
        schema_version: null,
        engine: this.deps.repo.dialect,
        created_at: nowIso(),
        tables: {},
        files: {},
      };
      await this.deps.repo.snapshot(async (db) => {
        manifest.schema_version = await this.deps.repo.schemaVersion(db);
        const tables = await this.deps.repo.tables(db);
        for (const [i, table] of tables.entries()) {
          progress({ step: 'table', current: i, total: tables.length, message: `table ${table}` });
          const columns = await this.deps.repo.columns(db, table);
          const file = path.join(work, `${table}.ndjson`);
          const sink = createWriteStream(file);
          let rows = 0;
          for (let offset = 0; ; offset += BATCH) {
            const batch = await this.deps.repo.rows(db, table, columns, offset);
            for (const row of batch) {
              const line = `${JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, portable(v)])))}\n`;
              if (!sink.write(line)) await once(sink, 'drain');
            }
            rows += batch.length;
            if (batch.length < BATCH) break;
          }
          sink.end();
          await once(sink, 'finish');
          manifest.tables[table] = { rows, sha256: (await digest(file)).sha256, order: i };
          entries.push({ name: `tables/${table}.ndjson`, file });
        }
      });
      for (const kept of KEPT_IN_DATA_DIR) {
        for (const rel of await this.keptFiles(kept)) {
          const file = path.join(this.deps.dataDir, rel);
          manifest.files[rel] = await digest(file);
          entries.push({ name: `files/${rel}`, file });
        }
      }
      progress({ step: 'file', current: 0, total: 1, message: 'writing the file' });
      await mkdir(path.dirname(path.resolve(out)), { recursive: true });
      await writeArchive(partial, entries, manifest);
      // Read back whole before it takes the name: a backup that would not restore is never left as one.
      progress({ step: 'verify', current: 0, total: 1, message: 'checking the file' });
      const check = await workDir('backup-check');
      try {
        await readArchive(partial, check);
      } finally {
        await rm(check, { recursive: true, force: true });
      }
      await rename(partial, out);
      return manifest;
    } finally {
      await rm(partial, { force: true });
      await rm(work, { recursive: true, force: true });
    }
  }

  private async keptFiles(kept: string): Promise<string[]> {
    const full = path.join(this.deps.dataDir, kept);
    if (!existsSync(full)) return [];
    return (await stat(full)).isDirectory() ? filesUnder(this.deps.dataDir, kept) : [kept];
  }

  /** Reads and checks a backup without changing anything: its manifest, or BackupFileError saying what is wrong. */
  async inspect(file: string): Promise<Manifest> {
    const dir = await workDir('restore');
    try {
      return await readArchive(file, dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Restores a backup into this database. Refuses a database that already has accounts unless `replace` (which
   * takes a backup of it first, into `safetyDir`). A backup of an older schema goes into that schema and is migrated to this server's.
   */
  async restore(
    file: string,
    options: { replace?: boolean; safetyDir?: string } = {},
    progress: (p: BackupProgress) => void = () => undefined,
  ): Promise<{ manifest: Manifest; safety: string | null }> {
    const dir = await workDir('restore');
    try {
      progress({ step: 'verify', current: 0, total: 1, message: 'checking the file' });
      const manifest = await readArchive(file, dir);
      const current = await this.deps.repo.schemaVersion();
      const older = this.olderSchema(manifest, current);
      if (!older) await this.refuseMissingTables(manifest);
      const users = await this.deps.repo.snapshot((db) => this.deps.repo.count(db, 'users'));
      let safety: string | null = null;
      if (users > 0) {
        if (!options.replace)
          throw new RestoreRefused(
            'this database already has accounts: restore into an empty one, or replace it (a backup of it is taken first)',
          );
        const safetyDir = options.safetyDir ?? path.join(this.deps.dataDir, 'backups');
        safety = path.join(safetyDir, `before-restore-${nowIso().replace(/[:.]/g, '-')}.tar.gz`);
        await this.backup(safety);
      }
      if (older)
        // The rows go into the schema they were taken from; the migrations then carry them forward as on any upgrade.
        await this.deps.repo.rebuildAt(manifest.schema_version!, async (db) => {
          progress({ step: 'restore', current: 0, total: 1, message: `schema ${manifest.schema_version}` });
          await this.refuseMissingTables(manifest, db);
          await this.load(db, dir, manifest, progress);
        });
      else await this.deps.repo.write((db) => this.load(db, dir, manifest, progress));
      for (const rel of Object.keys(manifest.files)) {
        const target = path.join(this.deps.dataDir, rel);
        await mkdir(path.dirname(target), { recursive: true });
        await copyFile(path.join(dir, 'files', rel), target);
      }
      return { manifest, safety };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Whether the backup is of an older schema this server migrates from; refuses a newer or unknown one. */
  private olderSchema(manifest: Manifest, current: string | null): boolean {
    if (manifest.schema_version === current) return false;
    const known = this.deps.repo.knownVersions();
    const at = manifest.schema_version ? known.indexOf(manifest.schema_version) : -1;
    if (at < 0 || (current !== null && at > known.indexOf(current)))
      throw new RestoreRefused(
        `the backup's schema (${manifest.schema_version ?? 'unknown'}) is newer than this server's (${current ?? 'none'}): restore it with Colophon ${manifest.product_version} or later`,
      );
    return true;
  }

  private async refuseMissingTables(manifest: Manifest, db?: Db): Promise<void> {
    const tables = await this.deps.repo.tables(db);
    const missing = Object.keys(manifest.tables).filter((t) => !tables.includes(t));
    if (missing.length > 0) throw new RestoreRefused(`the backup holds tables this server does not have: ${missing.join(', ')}`);
  }

  /** Empties every table and loads the backup's rows (inside the caller's transaction). */
  private async load(db: Db, dir: string, manifest: Manifest, progress: (p: BackupProgress) => void): Promise<void> {
    const tables = await this.deps.repo.tables(db);
    const ordered = Object.entries(manifest.tables)
      .sort((a, b) => a[1].order - b[1].order)
      .map(([t]) => t);
    await this.deps.repo.clear(db, tables);
    for (const [i, table] of ordered.entries()) {
      progress({ step: 'restore', current: i, total: ordered.length, message: `table ${table}` });
      const lines = createInterface({ input: createReadStream(path.join(dir, 'tables', `${table}.ndjson`)), crlfDelay: Infinity });
      let batch: Record<string, unknown>[] = [];
      let rows = 0;
      for await (const line of lines) {
        if (!line) continue;
        const row = JSON.parse(line) as Record<string, unknown>;
        batch.push(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, fromPortable(v)])));
        if (batch.length >= BATCH) {
          await this.deps.repo.insert(db, table, batch);
          rows += batch.length;
          batch = [];
        }
      }
      await this.deps.repo.insert(db, table, batch);
      rows += batch.length;
      if (rows !== manifest.tables[table]!.rows)
        throw new BackupFileError(`table ${table} holds ${rows} rows where its manifest says ${manifest.tables[table]!.rows}`);
    }
  }
}
