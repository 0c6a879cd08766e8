import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { openDatabase, type Database } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { API_VERSION } from '../../http/openapi.js';
import { BackupFileError } from './archive.js';
import { BackupRepository, BATCH } from './repository.js';
import { BackupService, RestoreRefused, type BackupProgress } from './service.js';

/** Exit codes of `backup`, `restore` and `copy`, for scripts (docs/backups.md). */
export const EXIT = { ok: 0, failed: 1, usage: 2, badFile: 3, refused: 4, mismatch: 5 } as const;

export function backupService(config: Config, database: Database): BackupService {
  return new BackupService({ repo: new BackupRepository(database), dataDir: path.resolve(config.data_dir), productVersion: API_VERSION });
}

/** Progress as one rewritten line on a terminal, as plain lines otherwise. */
function reporter(stream: NodeJS.WriteStream): (p: BackupProgress) => void {
  let last = '';
  return (p) => {
    const text = `${p.message} (${p.current + 1}/${Math.max(p.total, 1)})`;
    if (stream.isTTY) stream.write(`\r\x1b[K${text}`);
    else if (p.message !== last) stream.write(`${text}\n`);
    last = p.message;
  };
}

const endLine = (stream: NodeJS.WriteStream) => stream.isTTY && stream.write('\r\x1b[K');

/** What a failure exits with, and says. */
export function failure(err: unknown): { code: number; message: string } {
  if (err instanceof BackupFileError) return { code: EXIT.badFile, message: `The backup file is refused: ${err.message}.` };
  if (err instanceof RestoreRefused) return { code: EXIT.refused, message: `Nothing was restored: ${err.message}.` };
  return { code: EXIT.failed, message: err instanceof Error ? err.message : String(err) };
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

export async function backupCommand(config: Config, output: string | undefined): Promise<string> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database);
    const out = path.resolve(output ?? path.join(config.data_dir, 'backups', `colophon-${stamp()}.tar.gz`));
    const manifest = await backupService(config, database).backup(out, reporter(process.stderr));
    endLine(process.stderr);
    const rows = Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0);
    return `${out}: ${Object.keys(manifest.tables).length} tables, ${rows} rows, ${Object.keys(manifest.files).length} files (schema ${manifest.schema_version})`;
  } finally {
    await database.close();
  }
}

export async function restoreCommand(config: Config, file: string, replace: boolean): Promise<string> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database);
    const { manifest, safety } = await backupService(config, database).restore(
      path.resolve(file),
      { replace, safetyDir: path.join(config.data_dir, 'backups') },
      reporter(process.stderr),
    );
    endLine(process.stderr);
    const rows = Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0);
    return `Restored ${rows} rows from ${file} (taken ${manifest.created_at} on ${manifest.engine})${safety ? `; what was here is kept in ${safety}` : ''}`;
  } finally {
    await database.close();
  }
}

/** `sqlite:<file>` or `postgres://user:password@host:port/name` as the database part of a configuration. */
export function targetConfig(config: Config, to: string): Config {
  if (to.startsWith('sqlite:')) return { ...config, database: { ...config.database, type: 'sqlite', path: path.resolve(to.slice(7)) } };
  if (/^postgres(ql)?:\/\//.test(to)) {
    const url = new URL(to);
    return {
      ...config,
      database: {
        ...config.database,
        type: 'postgres',
        host: url.hostname || 'localhost',
        port: Number(url.port) || 5432,
        name: decodeURIComponent(url.pathname.slice(1)) || 'colophon',
        user: decodeURIComponent(url.username) || config.database.user,
        password: url.password ? decodeURIComponent(url.password) : config.database.password,
        ssl: url.searchParams.get('sslmode') === 'require' || config.database.ssl,
      },
    };
  }
  throw new Error(`--to must be sqlite:<file> or postgres://user:password@host:port/name, not "${to}"`);
}

/**
 * Each portable table's rows in an order and spelling both engines agree on (numbers as text, rows sorted as JSON):
 * the same data gives the same digest on SQLite and PostgreSQL.
 */
export async function tableDigests(database: Database): Promise<Record<string, { rows: number; sha256: string }>> {
  const repo = new BackupRepository(database);
  return repo.snapshot(async (db) => {
    const out: Record<string, { rows: number; sha256: string }> = {};
    for (const table of await repo.tables(db)) {
      const columns = await repo.columns(db, table);
      const lines: string[] = [];
      for (let offset = 0; ; offset += BATCH) {
        const batch = await repo.rows(db, table, columns, offset);
        for (const row of batch)
          lines.push(
            JSON.stringify(
              columns.map((c) => {
                const v = row[c];
                return v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString('base64') : String(v);
              }),
            ),
          );
        if (batch.length < BATCH) break;
      }
      lines.sort();
      out[table] = { rows: lines.length, sha256: createHash('sha256').update(lines.join('\n')).digest('hex') };
    }
    return out;
  });
}

/** Copies this database into another (empty) one, of either engine, and checks every table arrived whole. */
export async function copyCommand(config: Config, to: string): Promise<{ code: number; message: string }> {
  const target = targetConfig(config, to);
  const source = openDatabase(config);
  const destination = openDatabase(target);
  const work = await mkdtemp(path.join(os.tmpdir(), 'colophon-copy-'));
  try {
    await migrateToLatest(source);
    await migrateToLatest(destination);
    const file = path.join(work, 'copy.tar.gz');
    await backupService(config, source).backup(file, reporter(process.stderr));
    // Files under data_dir stay where they are: both configurations name the same data_dir.
    await backupService({ ...target, data_dir: work }, destination).restore(file, {}, reporter(process.stderr));
    endLine(process.stderr);
    const [a, b] = await Promise.all([tableDigests(source), tableDigests(destination)]);
    const differ = Object.keys(a).filter((t) => a[t]!.sha256 !== b[t]?.sha256 || a[t]!.rows !== b[t]?.rows);
    if (differ.length > 0) return { code: EXIT.mismatch, message: `Copied, but these tables differ: ${differ.join(', ')}` };
    const rows = Object.values(a).reduce((n, t) => n + t.rows, 0);
    return {
      code: EXIT.ok,
      message: `Copied ${Object.keys(a).length} tables, ${rows} rows, to ${target.database.type}; every table's rows and checksum match`,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
    await Promise.all([source.close(), destination.close()]);
  }
}
