import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import type { Config } from '../../config/schema.js';
import { openDatabase, type Database } from '../../db/connection.js';
import { notFound } from '../../http/errors.js';
import type { TaskQueue, TaskRow } from '../../tasks/queue.js';
import { cronError, type Scheduler } from '../../tasks/scheduler.js';
import type { TaskContext } from '../../tasks/worker.js';
import type { SettingsService } from '../settings/service.js';
import { Manifest } from './archive.js';
import { backupService } from './commands.js';
import { BackupRepository } from './repository.js';
import { RestoreRefused, sweepAbandoned } from './service.js';

export const BACKUP_TASK = 'backup';
const SCHEDULE_KEY = 'backups';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.tar\.gz$/;

export interface BackupView {
  name: string;
  size: number;
  created_at: string;
  /** From its manifest: the engine, schema and what it holds; null when the file has no readable manifest. */
  summary: { engine: string; schema_version: string | null; tables: number; rows: number; files: number; users: number } | null;
}

/** The manifest alone (the archive's first entry), without reading the rest of the file. */
async function manifestOf(file: string): Promise<Manifest | null> {
  return new Promise((resolve) => {
    const extract = tar.extract();
    const input = createReadStream(file);
    let done = false;
    const finish = (m: Manifest | null) => {
      if (done) return;
      done = true;
      input.destroy();
      extract.destroy();
      resolve(m);
    };
    extract.on('entry', (header, stream) => {
      if (header.name !== 'manifest.json') return finish(null);
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        const parsed = Manifest.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        finish(parsed.success ? parsed.data : null);
      });
    });
    extract.on('error', () => finish(null));
    extract.on('finish', () => finish(null));
    input.on('error', () => finish(null));
    input.pipe(createGunzip().on('error', () => finish(null))).pipe(extract);
  });
}

/**
 * Backups taken by the server (Administration → Backups, issue 52): now or on the `backup_schedule` setting, into
 * `backup_folder` (default `<data_dir>/backups`), keeping the newest `backup_keep`. Each is a `backup` task; the
 * snapshot is read over a connection of its own, so readers are never held behind it. The last failure is kept for
 * `/health` and the admin screen.
 */
export class ScheduledBackups {
  lastFailure: { at: string; message: string } | null = null;

  constructor(
    private readonly deps: {
      config: Config;
      database: Database;
      settings: SettingsService;
      queue: TaskQueue;
      scheduler: Scheduler;
    },
  ) {}

  /**
   * Restores a backup into this server's database while it has no account (the first-run screen), and says which
   * libraries' folders are missing here. Refused once an account exists.
   */
  async restoreAtSetup(file: string): Promise<{
    restored: { created_at: string; engine: string; tables: number; rows: number };
    libraries: { id: string; name: string; path: string; present: boolean }[];
  }> {
    const repo = new BackupRepository(this.deps.database);
    if ((await repo.snapshot((db) => repo.count(db, 'users'))) > 0)
      throw new RestoreRefused('the server is set up already: a backup is restored over it with `colophon restore --replace`');
    const { manifest } = await backupService(this.deps.config, this.deps.database).restore(file);
    const libraries = await repo.libraries();
    return {
      restored: {
        created_at: manifest.created_at,
        engine: manifest.engine,
        tables: Object.keys(manifest.tables).length,
        rows: Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0),
      },
      libraries: libraries.map((l) => ({ ...l, present: existsSync(l.path) })),
    };
  }

  folder(): string {
    const configured = this.deps.settings.peek('backup_folder');
    return path.resolve(configured || path.join(this.deps.config.data_dir, 'backups'));
  }

  async list(): Promise<BackupView[]> {
    const dir = this.folder();
    if (!existsSync(dir)) return [];
    const names = (await readdir(dir)).filter((n) => NAME.test(n));
    const views = await Promise.all(
      names.map(async (name): Promise<BackupView> => {
        const file = path.join(dir, name);
        const [info, manifest] = await Promise.all([stat(file), manifestOf(file)]);
        return {
          name,
          size: info.size,
          created_at: manifest?.created_at ?? info.mtime.toISOString(),
          summary: manifest
            ? {
                engine: manifest.engine,
                schema_version: manifest.schema_version,
                tables: Object.keys(manifest.tables).length,
                rows: Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0),
                files: Object.keys(manifest.files).length,
                users: manifest.tables.users?.rows ?? 0,
              }
            : null,
        };
      }),
    );
    return views.sort((a, b) => b.created_at.localeCompare(a.created_at));
  }

  /** The file of a backup in the folder (404 for any other name). */
  async file(name: string): Promise<string> {
    if (!NAME.test(name)) throw notFound('Backup');
    const file = path.join(this.folder(), name);
    if (!existsSync(file)) throw notFound('Backup');
    return file;
  }

  async remove(name: string): Promise<void> {
    await rm(await this.file(name));
  }

  async request(reason: 'now' | 'schedule'): Promise<TaskRow> {
    const { task } = await this.deps.queue.enqueue({ type: BACKUP_TASK, activeKey: BACKUP_TASK, payload: { reason }, maxAttempts: 1 });
    return task;
  }

  /** The `backup` task: a backup into the folder, then the oldest beyond `backup_keep` removed. */
  async run(ctx: TaskContext): Promise<unknown> {
    const dir = this.folder();
    const database = openDatabase(this.deps.config);
    try {
      await mkdir(dir, { recursive: true });
      const name = `colophon-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`;
      const manifest = await backupService(this.deps.config, database).backup(path.join(dir, name), (p) =>
        ctx.progress({ current: p.current, total: p.total, message: p.message }),
      );
      const keep = this.deps.settings.peek('backup_keep');
      const removed: string[] = [];
      for (const old of (await this.list()).slice(keep)) {
        await rm(path.join(dir, old.name), { force: true });
        removed.push(old.name);
      }
      this.lastFailure = null;
      return {
        name,
        tables: Object.keys(manifest.tables).length,
        rows: Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0),
        removed,
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const message =
        code === 'ENOSPC'
          ? `the disk holding ${dir} is full: free some space (older backups are intact)`
          : code === 'EACCES' || code === 'EROFS'
            ? `${dir} cannot be written to by the server`
            : (err as Error).message;
      this.lastFailure = { at: new Date().toISOString(), message: `The last backup failed: ${message}` };
      throw new Error(this.lastFailure.message);
    } finally {
      await database.close();
    }
  }

  /** At start: what a backup killed mid-way left behind goes (the last good backups stay). */
  async sweep(): Promise<void> {
    // Best effort: a folder that cannot be read fails the next backup, in words, rather than the start.
    await sweepAbandoned(this.folder()).catch(() => undefined);
  }

  /** Keeps the cron job in step with the settings (called at start and when one of them changes). */
  sync(): void {
    const expression = this.deps.settings.peek('backup_schedule');
    if (!this.deps.settings.peek('backup_enabled') || !expression || cronError(expression)) {
      this.deps.scheduler.unschedule(SCHEDULE_KEY);
      return;
    }
    this.deps.scheduler.schedule(SCHEDULE_KEY, expression, () => this.request('schedule'));
  }
}
