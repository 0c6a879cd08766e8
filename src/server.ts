import { buildApp, type BuildAppOptions } from './app.js';
import type { Config } from './config/schema.js';
import { ensureDataDir } from './data-dir.js';
import { openDatabase } from './db/connection.js';
import { adoptFormerDatabaseFile } from './db/former-name.js';
import { migrateToLatest } from './db/migrate.js';
import type { App } from './http/types.js';
import { ADMIN_ONLY, ROLE_PERMISSIONS, ROLES } from './identity/index.js';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  app: App;
  address: string;
  stop(): Promise<void>;
}

/** Everything `colophon serve` does: data dir, database and migrations, the app, background work, listening. */
export async function startServer(config: Config, options: Pick<BuildAppOptions, 'logger'> = {}): Promise<RunningServer> {
  if (config.server.role !== 'all' && config.database.type !== 'postgres')
    throw new Error(
      `server.role "${config.server.role}" needs PostgreSQL (database.type: postgres): a web instance hears a worker's events through it. With SQLite, run one process (role "all").`,
    );
  ensureDataDir(config);
  const adopted = adoptFormerDatabaseFile(config);
  const database = openDatabase(config);
  try {
    await migrateToLatest(database);
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
  const app = await buildApp({ config, database, logger: options.logger, openApiDocument: false, tuneHeapForTasks: true });
  if (adopted) app.log.info(adopted);
  warnAboutOpenLibraryRoots(config, app);
  const address = await app.listen({ host: config.server.host, port: config.server.port });
  await app.startEventBridge();
  // Task worker, cron schedules and scan_on_start scans run once the server accepts requests.
  await app.background.start();
  return { app, address, stop: () => app.close() };
}

/**
 * Stops accepting connections, lets in-flight requests finish, closes streams and the database; a
 * shutdown that hangs past 10 s exits anyway so an orchestrator's stop never waits forever.
 */
export function installShutdownHandlers(server: RunningServer): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      server.app.log.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        server.app.log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

/**
 * Without `libraries.allowed_roots`, whoever may create libraries can publish any folder the server reads;
 * that is every admin's right, but a maintainer's (or a custom permission's) only when the operator says so.
 */
function warnAboutOpenLibraryRoots(config: Config, app: App): void {
  if (config.libraries.allowed_roots.length > 0) return;
  const roles = ROLES.filter((role) => role !== 'admin' && ROLE_PERMISSIONS[role].includes('libraries-write'));
  if (roles.length === 0 && ADMIN_ONLY.has('libraries-write')) return;
  app.log.warn(
    { roles },
    'libraries.allowed_roots is not set: users below admin with libraries-write (role maintainer, or the custom permission) can publish any folder the server can read as a library; set libraries.allowed_roots to the folders that hold your books',
  );
}
