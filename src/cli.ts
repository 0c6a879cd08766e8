#!/usr/bin/env node
// First: it must run before the other modules are evaluated (see the file).
import { growYoungGenerationWhenBusy } from './start-heap.js';
import { writeFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config/load.js';
import { openDatabase } from './db/connection.js';
import { adoptFormerDatabaseFile } from './db/former-name.js';
import { migrateToLatest } from './db/migrate.js';
import { resetPassword, UsersRepository } from './identity/index.js';
import { BACKUP_EXIT, backupCommand, backupFailure, copyCommand, restoreCommand } from './operations/index.js';
import { installShutdownHandlers, startServer } from './server.js';

// `colophon openapi | head`: a reader that stops early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command();
program.name('colophon').description('Self-hosted library server for comics, manga and ebooks').showHelpAfterError().exitOverride();

program
  .command('serve')
  .description('Start the server (SQLite under ./data unless configured otherwise)')
  .option('-c, --config <file>', 'YAML configuration file (env COLOPHON_CONFIG)')
  .addOption(
    new Option('--role <role>', 'all (default), web (requests only) or worker (background work, /health only); config server.role').choices(
      ['all', 'web', 'worker'],
    ),
  )
  .action(async (opts: { config?: string; role?: 'all' | 'web' | 'worker' }) => {
    const loaded = loadConfig({ file: opts.config });
    const config = opts.role ? { ...loaded, server: { ...loaded.server, role: opts.role } } : loaded;
    const server = await startServer(config);
    growYoungGenerationWhenBusy();
    installShutdownHandlers(server);
  });

program
  .command('openapi')
  .description('Write the OpenAPI description without starting a server or touching the database')
  .option('-o, --output <file>', 'write to this file instead of standard output')
  .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'yaml']).default('json'))
  .option('-c, --config <file>', 'YAML configuration file (env COLOPHON_CONFIG)')
  .action(async (opts: { output?: string; format: 'json' | 'yaml'; config?: string }) => {
    const config = loadConfig({ file: opts.config });
    const app = await buildApp({ config, database: openDatabase(config), logger: false });
    await app.ready();
    const text = opts.format === 'yaml' ? app.swagger({ yaml: true }) : `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    if (opts.output) writeFileSync(opts.output, text);
    else process.stdout.write(text);
  });

const users = program.command('users').description('Manage accounts from the server itself (recovery)');
users
  .command('reset-password')
  .description(
    'Give an account a new password (and enable it again, signing it out everywhere): the way back in when sign-in through the identity provider fails or password sign-in is off',
  )
  .argument('<login>', 'username or e-mail address')
  .option('-p, --password <password>', 'the new password (default: a random one, printed)')
  .option('-c, --config <file>', 'YAML configuration file (env COLOPHON_CONFIG)')
  .action(async (login: string, opts: { password?: string; config?: string }) => {
    const config = loadConfig({ file: opts.config });
    const adopted = adoptFormerDatabaseFile(config);
    if (adopted) process.stderr.write(`${adopted}\n`);
    const database = openDatabase(config);
    try {
      await migrateToLatest(database);
      const result = await resetPassword(new UsersRepository(database.db), login, opts.password);
      process.stdout.write(
        `New password for ${result.username} (${result.role})${opts.password ? ' set' : `: ${result.password}`}\nSign in with it at /sign-in?local=1 (administrators can even when password sign-in is off for the web).\n`,
      );
    } finally {
      await database.close();
    }
  });

/** Runs a backup command: its report on stdout and exit 0, or the reason on stderr and the exit code for it. */
async function backupAction(run: () => Promise<{ code: number; message: string } | string>) {
  try {
    const result = await run();
    const { code, message } = typeof result === 'string' ? { code: BACKUP_EXIT.ok, message: result } : result;
    (code === BACKUP_EXIT.ok ? process.stdout : process.stderr).write(`${message}\n`);
    process.exitCode = code;
  } catch (err) {
    const { code, message } = backupFailure(err);
    process.stderr.write(`${message}\n`);
    process.exitCode = code;
  }
}

program
  .command('backup')
  .description(
    'Back up what a rescan cannot rebuild (accounts, keys, reading, lists, metadata fixes, chosen covers) into one .tar.gz, while the server runs',
  )
  .option('-o, --output <file>', 'the file to write (default: <data_dir>/backups/colophon-<time>.tar.gz)')
  .option('-c, --config <file>', 'YAML configuration file (env COLOPHON_CONFIG)')
  .action(async (opts: { output?: string; config?: string }) => {
    const config = loadConfig({ file: opts.config });
    await backupAction(() => backupCommand(config, opts.output));
  });

program
  .command('restore')
  .description(
    'Restore a backup into this database: an empty one, or with --replace (what is there is backed up first). Exit 3: the file is refused; 4: the database is',
  )
  .argument('<file>', 'a backup (.tar.gz)')
  .option('--replace', 'replace a database that already has accounts, after backing it up into <data_dir>/backups')
  .option('-c, --config <file>', 'YAML configuration file (env COLOPHON_CONFIG)')
  .action(async (file: string, opts: { replace?: boolean; config?: string }) => {
    const config = loadConfig({ file: opts.config });
    await backupAction(() => restoreCommand(config, file, opts.replace === true));
  });

program
  .command('copy')
  .description('Copy this database into another, SQLite to PostgreSQL or back, and check every table (exit 5 when one differs)')
  .requiredOption('--to <target>', 'sqlite:<file> or postgres://user:password@host:port/name (an empty database)')
  .option('-c, --config <file>', 'YAML configuration file of the source (env COLOPHON_CONFIG)')
  .action(async (opts: { to: string; config?: string }) => {
    const config = loadConfig({ file: opts.config });
    await backupAction(() => copyCommand(config, opts.to));
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    // Help and version are successes; any other parse error is a usage error (exit 2, usage already printed).
    process.exit(err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2);
  }
  if (err instanceof ConfigError) {
    console.error(`colophon: ${err.message}`);
    process.exit(1);
  }
  console.error(`colophon: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
