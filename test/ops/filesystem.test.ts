import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders, createUser } from '../helpers/auth.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let t: TestApp;
let root: string;
beforeAll(async () => {
  t = await createTestApp();
  root = makeTempDir('colophon-fs-');
  mkdirSync(path.join(root, 'Comics', 'Saga'), { recursive: true });
  mkdirSync(path.join(root, 'manga'));
  mkdirSync(path.join(root, '.hidden'));
  writeFileSync(path.join(root, 'readme.txt'), 'hello');
  writeFileSync(path.join(root, 'a.cbz'), 'zip');
  symlinkSync(root, path.join(root, 'Comics', 'loop'));
  symlinkSync(path.join(root, 'nowhere'), path.join(root, 'broken'));
});
afterAll(() => t.close());

const browse = async (query: string, headers?: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: `/api/v1/filesystem/browse?${query}`, headers: headers ?? (await adminHeaders(t)) });

describe('GET /filesystem/browse (admin only)', () => {
  it('lists directories first, then files, with name, path, is_directory, size, modified and the parent', async () => {
    const res = await browse(`path=${encodeURIComponent(root)}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.path).toBe(root);
    expect(body.parent).toBe(path.dirname(root));
    expect(body.entries.map((e: { name: string }) => e.name)).toEqual(['Comics', 'manga', 'a.cbz', 'broken', 'readme.txt']);
    expect(body.entries[0]).toMatchObject({ name: 'Comics', path: path.join(root, 'Comics'), is_directory: true, size: null });
    expect(body.entries.find((e: { name: string }) => e.name === 'readme.txt')).toMatchObject({
      is_directory: false,
      size: 5,
      modified: expect.any(String),
    });
  });

  it('shows hidden entries on request', async () => {
    const names = (await browse(`path=${encodeURIComponent(root)}&show_hidden=true`)).json().entries.map((e: { name: string }) => e.name);
    expect(names).toContain('.hidden');
  });

  it('normalises .. segments and follows a symlink loop one level at a time', async () => {
    const res = await browse(`path=${encodeURIComponent(`${root}/Comics/../manga/..`)}`);
    expect(res.json().path).toBe(root);
    const loop = await browse(`path=${encodeURIComponent(path.join(root, 'Comics', 'loop'))}`);
    expect(loop.statusCode).toBe(200);
    expect(loop.json().entries.map((e: { name: string }) => e.name)).toContain('Comics');
  });

  it('rejects relative paths (400), missing paths (404), files (400), NUL bytes (400)', async () => {
    expect((await browse('path=relative/dir')).statusCode).toBe(400);
    expect((await browse('path=..%2F..%2Fetc')).statusCode).toBe(400);
    const missing = await browse(`path=${encodeURIComponent(path.join(root, 'nope'))}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('NotFound');
    expect((await browse(`path=${encodeURIComponent(path.join(root, 'readme.txt'))}`)).statusCode).toBe(400);
    expect((await browse(`path=${encodeURIComponent(root)}%00x`)).statusCode).toBe(400);
  });

  it('defaults to the root', async () => {
    expect((await browse('')).json().path).toBe('/');
  });

  it('is forbidden to non-admins and requires authentication', async () => {
    const maintainer = await createUser(t, 'maintainer');
    expect((await browse(`path=${encodeURIComponent(root)}`, maintainer.headers)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/filesystem/browse' })).statusCode).toBe(401);
  });
});

describe('GET /filesystem/drives', () => {
  it('returns the root on Linux', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/filesystem/drives', headers: await adminHeaders(t) });
    expect(res.json()).toEqual([{ name: '/', path: '/' }]);
  });
});
