import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, waitForHealth } from './global-setup.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The environment without the tests' own COLOPHON_E2E_* variables, which the server would take for config keys. */
export const serverEnv = (extra: Record<string, string | undefined>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('COLOPHON_E2E_'))),
  ...extra,
});

/** A second server of the built app (`dist/cli.js serve`) on its own data folder, answering once healthy. */
export async function freshServer(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const server = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'serve'], {
    env: serverEnv({
      COLOPHON_DATA_DIR: dataDir,
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(port),
      COLOPHON_LOGGING__LEVEL: 'warn',
    }),
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (server.exitCode !== null) return;
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  };
  try {
    await waitForHealth(url, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}
