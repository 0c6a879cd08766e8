import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Headers, userHeaders } from '../helpers/auth.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { createCatalogApp, type CatalogTestApp } from '../helpers/catalog.js';

/** A root with a books folder, a plain file and a link to a folder outside it; and a folder outside the root. */
function layout() {
  const root = makeTempDir('colophon-roots-');
  const outside = makeTempDir('colophon-outside-');
  mkdirSync(path.join(root, 'comics'));
  mkdirSync(path.join(root, 'manga'));
  writeFileSync(path.join(root, 'notes.txt'), 'not a folder');
  symlinkSync(outside, path.join(root, 'escape'));
  return { root, outside };
}

const create = (t: CatalogTestApp, headers: Headers, libraryPath: string, name = `lib ${Math.random()}`) =>
  t.app.inject({ method: 'POST', url: '/api/v1/libraries', headers, payload: { name, path: libraryPath } });

describe('libraries.allowed_roots: libraries are created and moved only inside the allowed folders', () => {
  let t: CatalogTestApp;
  let maintainer: Headers;
  let dirs: ReturnType<typeof layout>;
  beforeAll(async () => {
    dirs = layout();
    t = await createCatalogApp({ libraries: { allowed_roots: [dirs.root] } });
    maintainer = await userHeaders(t, 'maintainer');
  });
  afterAll(() => t.close());

  it('a maintainer gets one and the same 400 for outside, missing, not-a-directory and a link leading outside', async () => {
    const refused = [
      dirs.outside,
      '/etc',
      '/no/such/folder',
      path.join(dirs.root, 'missing'),
      path.join(dirs.root, 'notes.txt'),
      path.join(dirs.root, 'escape'),
    ];
    const bodies = [];
    for (const p of refused) {
      const res = await create(t, maintainer, p);
      expect(res.statusCode, p).toBe(400);
      bodies.push(res.json());
    }
    for (const body of bodies)
      expect(body).toEqual({
        error: 'BadRequest',
        message: 'path is not a folder this server may publish as a library',
        details: { field: 'path' },
      });
  });

  it('a folder inside a root is accepted; moving the library out of the roots is refused the same way', async () => {
    const res = await create(t, maintainer, path.join(dirs.root, 'comics'), 'Comics');
    expect(res.statusCode).toBe(201);
    const id = res.json<{ id: string }>().id;
    for (const method of ['PUT', 'PATCH'] as const) {
      const moved = await t.app.inject({
        method,
        url: `/api/v1/libraries/${id}`,
        headers: maintainer,
        payload: { name: 'Comics', path: dirs.outside },
      });
      expect(moved.statusCode, method).toBe(400);
      expect(moved.json().message).toBe('path is not a folder this server may publish as a library');
    }
    const inside = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/libraries/${id}`,
      headers: maintainer,
      payload: { path: path.join(dirs.root, 'manga') },
    });
    expect(inside.statusCode).toBe(200);
    expect(inside.json().path).toBe(path.join(dirs.root, 'manga'));
  });

  it('the admin is refused outside the roots too, and told why', async () => {
    const outside = await create(t, t.headers, dirs.outside);
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toMatch(/allowed_roots/);
    expect(outside.json().message).toContain(dirs.root);
    const link = await create(t, t.headers, path.join(dirs.root, 'escape'));
    expect(link.json().message).toMatch(/symbolic link/);
    const missing = await create(t, t.headers, path.join(dirs.root, 'missing'));
    expect(missing.json().message).toBe('path does not exist');
  });

  it('/filesystem/browse stays inside the roots: the first root by default, 403 outside, no parent above a root', async () => {
    const browse = (query: string) => t.app.inject({ method: 'GET', url: `/api/v1/filesystem/browse${query}`, headers: t.headers });
    const top = await browse('');
    expect(top.statusCode).toBe(200);
    expect(top.json()).toMatchObject({ path: dirs.root, parent: null });
    expect(top.json().entries.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['comics', 'notes.txt']));
    const below = await browse(`?path=${encodeURIComponent(path.join(dirs.root, 'comics'))}`);
    expect(below.json()).toMatchObject({ parent: dirs.root });
    for (const p of [dirs.outside, '/', path.join(dirs.root, '..'), path.join(dirs.root, 'escape')]) {
      const res = await browse(`?path=${encodeURIComponent(p)}`);
      expect(res.statusCode, p).toBe(403);
    }
    // Browsing starts at each root: the picker offers them, as it offers Windows drives.
    const drives = await t.app.inject({ method: 'GET', url: '/api/v1/filesystem/drives', headers: t.headers });
    expect(drives.json()).toEqual([{ name: dirs.root, path: dirs.root }]);
  });
});

describe('without allowed_roots (any folder), refusals still do not reveal what exists below admin', () => {
  let t: CatalogTestApp;
  let maintainer: Headers;
  let dirs: ReturnType<typeof layout>;
  beforeAll(async () => {
    dirs = layout();
    t = await createCatalogApp();
    maintainer = await userHeaders(t, 'maintainer');
  });
  afterAll(() => t.close());

  it('missing and not-a-directory answer the same to a maintainer, and differently (as before) to the admin', async () => {
    const missing = path.join(dirs.root, 'missing');
    const file = path.join(dirs.root, 'notes.txt');
    const [m1, m2] = [await create(t, maintainer, missing), await create(t, maintainer, file)];
    expect(m1.statusCode).toBe(400);
    expect(m2.json()).toEqual(m1.json());
    expect((await create(t, t.headers, missing)).json().message).toBe('path does not exist');
    expect((await create(t, t.headers, file)).json().message).toBe('path is not a directory');
    expect((await create(t, maintainer, dirs.outside)).statusCode).toBe(201);
  });
});

describe('startup warns while libraries.allowed_roots is empty', () => {
  async function startupWarnings(roots: string[]): Promise<string[]> {
    const { Writable } = await import('node:stream');
    const { startServer } = await import('../../src/server.js');
    const { createTestDatabase } = await import('../helpers/app.js');
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const { config, database, drop } = await createTestDatabase({
      server: { host: '127.0.0.1', port: 0 },
      libraries: { allowed_roots: roots },
    });
    await database.close();
    const server = await startServer(config, { logger: { level: 'warn', stream } });
    await server.stop();
    await drop();
    // Only this warning is under test (background work may log its own at shutdown).
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((msg) => msg.includes('allowed_roots'));
  }

  it('names the key and who can publish folders when it is empty; says nothing once it is set', async () => {
    const open = await startupWarnings([]);
    expect(open).toEqual([expect.stringMatching(/^libraries\.allowed_roots is not set: users below admin with libraries-write/)]);
    expect(await startupWarnings([makeTempDir()])).toEqual([]);
  });
});
