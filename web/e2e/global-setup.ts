import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { E2E_ENV } from './env.js';

const root = path.resolve(import.meta.dirname, '../..');

export function freePort(): Promise<number> {
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

export async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
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

/**
 * MangaDex as the identification tests meet it (online services are unreachable here): its real recorded answers
 * (test/fixtures/providers/SOURCES.md), the "komi" title search for any title, an entry of it by id in the
 * `entity` envelope MangaDex answers `GET /manga/{id}` with.
 */
async function mangaDexReplay(): Promise<{ url: string; close(): Promise<void> }> {
  const fixtures = path.join(root, 'test/fixtures/providers/mangadex');
  const list = readFileSync(path.join(fixtures, 'manga-list-title-komi-limit100-total55.json'), 'utf8');
  const entity = JSON.parse(
    readFileSync(path.join(fixtures, 'manga-d86cf65b-5f6c-437d-a0af-19a31f94ec55-includes.json'), 'utf8'),
  ) as object;
  const items = new Map((JSON.parse(list) as { data: { id: string }[] }).data.map((item) => [item.id, item]));
  const server = createHttpServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://replay');
    if (pathname === '/manga') return res.writeHead(200, { 'content-type': 'application/json' }).end(list);
    const item = items.get(pathname.split('/')[2] ?? '');
    if (!item) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"result":"error","errors":[]}');
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...entity, data: item }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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

  const mangadex = await mangaDexReplay();
  const server = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      COLOPHON_DATA_DIR: dataDir,
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(port),
      COLOPHON_LOGGING__LEVEL: 'warn',
      COLOPHON_METADATA__PROVIDERS__MANGADEX__BASE_URL: mangadex.url,
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
    await mangadex.close();
    rmSync(work, { recursive: true, force: true });
  };
}
