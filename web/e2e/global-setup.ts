import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { E2E_ENV } from './env.js';

const root = path.resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The series the tests expect, as real CBZ files with ComicInfo.xml. */
export const LIBRARY_SERIES = [
  { folder: 'Saga', books: 3, info: { Series: 'Saga', Publisher: 'Image', Genre: 'Science Fiction', LanguageISO: 'en', Year: 2012 } },
  { folder: 'Bone', books: 2, info: { Series: 'Bone', Publisher: 'Cartoon Books', Genre: 'Fantasy', LanguageISO: 'en', Year: 1991 } },
  {
    folder: 'Akira',
    books: 2,
    info: { Series: 'Akira', Publisher: 'Kodansha', Genre: 'Science Fiction', LanguageISO: 'ja', Year: 1982, Manga: 'YesAndRightToLeft' },
  },
] as const;

async function makeLibrary(dir: string): Promise<void> {
  for (const series of LIBRARY_SERIES) {
    const folder = path.join(dir, series.folder);
    mkdirSync(folder, { recursive: true });
    for (let n = 1; n <= series.books; n += 1) {
      // Each book's cover in its own colour, so screenshots tell the books apart.
      const hue = (LIBRARY_SERIES.indexOf(series) * 110 + n * 35) % 360;
      await makeCbz(folder, `${series.folder} ${String(n).padStart(3, '0')}.cbz`, {
        pages: Array.from({ length: 4 }, (_, i) => ({
          name: `page${i + 1}.jpg`,
          width: 300,
          height: 450,
          color: `hsl(${hue + i * 20}, 55%, 45%)`,
        })),
        comicInfo: { ...series.info, Number: n, Title: `${series.folder} chapter ${n}`, Summary: `Book ${n} of ${series.folder}.` },
      });
    }
  }
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not answer ${url}/health within ${timeoutMs} ms`);
}

/** Builds what is stale, then starts the real server the way `npm start` does, on a free port and a temp data_dir. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { cwd: root, stdio: 'inherit' });

  const work = mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-'));
  const dataDir = path.join(work, 'data');
  const libraryDir = path.join(work, 'library', 'Comics');
  mkdirSync(dataDir, { recursive: true });
  await makeLibrary(libraryDir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(root, 'test-results', 'server.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  writeFileSync(logFile, '');

  const server = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      COLOPHON_DATA_DIR: dataDir,
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(port),
      COLOPHON_LOGGING__LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' });
  server.stdout.on('data', log);
  server.stderr.on('data', log);
  await waitForHealth(url, 30_000);

  process.env[E2E_ENV.url] = url;
  process.env[E2E_ENV.libraryDir] = libraryDir;
  process.env[E2E_ENV.libraryRoot] = path.dirname(libraryDir);
  process.env[E2E_ENV.dataDir] = dataDir;

  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  };
}
