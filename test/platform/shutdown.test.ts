import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp-dir.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('colophon serve: graceful shutdown on SIGTERM', () => {
  it('serves /health with no config file, then on SIGTERM ends open SSE streams and exits 0 within 10 s', async () => {
    const port = await freePort();
    const dataDir = makeTempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli.ts'), 'serve'], {
      env: {
        ...process.env,
        COLOPHON_SERVER__PORT: String(port),
        COLOPHON_SERVER__HOST: '127.0.0.1',
        COLOPHON_DATA_DIR: dataDir,
        COLOPHON_LOGGING__LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ok = await fetch(`${base}/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const health = await (await fetch(`${base}/health`)).json();
    expect(health).toMatchObject({ status: 'ok' });

    const setup = await fetch(`${base}/api/v1/setup/initialize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', email: 'a@example.org', password: 'password-123' }),
    });
    const { access_token } = (await setup.json()) as { access_token: string };
    const stream = await fetch(`${base}/api/v1/events/stream`, {
      headers: { authorization: `Bearer ${access_token}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();

    const started = Date.now();
    child.kill('SIGTERM');
    const streamEnded = (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return true;
    })();
    expect(await streamEnded).toBe(true);
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
