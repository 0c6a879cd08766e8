import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkLibrary, walkLibrarySync, type FoundFile } from '../../src/libraries/scanning/scanner/walk.js';
import { releaseWalkThread, walkLibraryOffThread, walkThreadRunning } from '../../src/libraries/scanning/scanner/walk-thread.js';
import { libraryDir } from './helpers.js';
import { asRoot, notAsRoot } from '../helpers/temp-dir.js';

afterAll(() => releaseWalkThread());

async function collect(walk: AsyncGenerator<FoundFile[]>): Promise<FoundFile[]> {
  const files: FoundFile[] = [];
  for await (const found of walk) files.push(...found);
  return files;
}

/** Nested series, loose books in the root, unicode names, hidden entries, non-books and symbolic links. */
function tree(): string {
  const root = libraryDir();
  const write = (rel: string, bytes = 'x') => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), bytes);
  };
  write('Loose One.cbz', 'loose');
  write('b-series/Vol 2.cbz', 'two!');
  write('b-series/Vol 1.CBZ');
  write('b-series/nested/Extra.pdf');
  write('a-series/Ünïcödé 01.epub');
  write('a-series/notes.txt');
  write('a-series/.hidden.cbz');
  write('.hidden-folder/Secret.cbz');
  write('__MACOSX/a-series/._Ünïcödé 01.epub');
  write('c-series/Book.cbr');
  symlinkSync(path.join(root, 'c-series/Book.cbr'), path.join(root, 'c-series/Linked.cbr'));
  symlinkSync(path.join(root, 'c-series'), path.join(root, 'linked-folder'));
  symlinkSync(path.join(root, 'missing.cbz'), path.join(root, 'c-series/Dangling.cbz'));
  // A link out of the library is skipped like a dangling one (libraryDir() makes the root in a folder of its own).
  writeFileSync(path.join(root, '..', 'Elsewhere.cbz'), 'outside');
  symlinkSync(path.join(root, '..', 'Elsewhere.cbz'), path.join(root, 'c-series/Escaping.cbz'));
  return root;
}

/** What each walker finds: the asynchronous one, the blocking one, and the one in the walk thread. */
async function everyWalker(root: string): Promise<{ inProcess: FoundFile[]; blocking: FoundFile[]; offThread: FoundFile[] }> {
  const inProcess = await collect(walkLibrary(root));
  const blocking: FoundFile[] = [];
  walkLibrarySync(root, (found) => blocking.push(...found));
  const offThread = await collect(walkLibraryOffThread(root));
  return { inProcess, blocking, offThread };
}

describe('Scanner walk: the walk in its own thread finds what the in-process walk finds, in the same order', () => {
  it('same files, sizes and mtimes: depth-first in name order, hidden entries skipped, file links followed, folder links not', async () => {
    const root = tree();
    const inProcess = await collect(walkLibrary(root));
    expect(inProcess.map((f) => f.relPath)).toEqual([
      'Loose One.cbz',
      'a-series/Ünïcödé 01.epub',
      'b-series/Vol 1.CBZ',
      'b-series/Vol 2.cbz',
      'b-series/nested/Extra.pdf',
      'c-series/Book.cbr',
      'c-series/Linked.cbr',
    ]);
    expect(await collect(walkLibraryOffThread(root))).toEqual(inProcess);
    // It really ran in the thread (a thread that fails to start falls back to walking here, silently).
    expect(walkThreadRunning()).toBe(true);
    const blocking: FoundFile[] = [];
    walkLibrarySync(root, (found) => blocking.push(...found));
    expect(blocking).toEqual(inProcess);
    // The thread is reused for the next walk, and a released one is started again.
    expect(await collect(walkLibraryOffThread(root))).toEqual(inProcess);
    releaseWalkThread();
    expect(await collect(walkLibraryOffThread(root))).toEqual(inProcess);
  });

  it('releasing the thread while a walk uses it leaves that walk alone', async () => {
    const root = tree();
    const walking = collect(walkLibraryOffThread(root));
    releaseWalkThread();
    expect(await walking).toEqual(await collect(walkLibrary(root)));
  });

  it('an unreadable library root fails the walk with the filesystem error', async () => {
    await expect(collect(walkLibraryOffThread(path.join(libraryDir(), 'gone')))).rejects.toMatchObject({ code: 'ENOENT' });
    // ... and the thread still serves the next walk.
    expect(await collect(walkLibraryOffThread(tree()))).toHaveLength(7);
  });

  it('a cancelled walk stops with the signal, and the next walk still works', async () => {
    const root = tree();
    const controller = new AbortController();
    const walk = walkLibraryOffThread(root, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(collect(walk)).rejects.toThrow('stop');
    const started = walkLibraryOffThread(root, { signal: controller.signal });
    await expect(started.next()).rejects.toThrow('stop');
    expect(await collect(walkLibraryOffThread(root))).toHaveLength(7);
    // Cancelled while waiting for the thread: the thread walking for nobody is stopped, a new one takes over.
    const later = new AbortController();
    const waiting = walkLibraryOffThread(root, { signal: later.signal }).next();
    later.abort(new Error('stop while waiting'));
    await expect(waiting).rejects.toThrow('stop while waiting');
    expect(await collect(walkLibraryOffThread(root))).toHaveLength(7);
  });

  it('walks several libraries at once', async () => {
    const [a, b] = [tree(), tree()];
    const [fromA, fromB] = await Promise.all([collect(walkLibraryOffThread(a)), collect(walkLibraryOffThread(b))]);
    expect(fromA).toEqual(await collect(walkLibrary(a)));
    expect(fromB).toEqual(await collect(walkLibrary(b)));
  });

  it.skipIf(asRoot)(notAsRoot('an unreadable folder is reported and skipped; the walk goes on'), async () => {
    const root = tree();
    chmodSync(path.join(root, 'b-series'), 0o000);
    try {
      const errors: string[] = [];
      const files = await collect(walkLibraryOffThread(root, { onError: (dir) => errors.push(dir) }));
      expect(errors).toEqual(['b-series']);
      expect(files.map((f) => f.relPath)).toEqual([
        'Loose One.cbz',
        'a-series/Ünïcödé 01.epub',
        'c-series/Book.cbr',
        'c-series/Linked.cbr',
      ]);
    } finally {
      chmodSync(path.join(root, 'b-series'), 0o755);
    }
  });

  it('a link to a file outside the library is skipped by every walker; a link to a file inside it is kept', async () => {
    const root = libraryDir();
    const outside = path.dirname(root);
    writeFileSync(path.join(root, 'Inside.cbz'), 'inside!');
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub/Deep.cbz'), 'deep');
    writeFileSync(path.join(outside, 'Secret.cbz'), 'secret');
    // A sibling folder whose name starts with the library's: outside, however alike the paths look.
    mkdirSync(path.join(outside, `${path.basename(root)}-twin`));
    writeFileSync(path.join(outside, `${path.basename(root)}-twin/Twin.cbz`), 'twin');
    writeFileSync(path.join(outside, 'not-a-book'), 'a system file');
    const link = (target: string, name: string) => symlinkSync(target, path.join(root, name));
    link(path.join(outside, 'Secret.cbz'), 'Absolute out.cbz');
    link('../Secret.cbz', 'Relative out.cbz');
    link(path.join(outside, `${path.basename(root)}-twin/Twin.cbz`), 'Twin out.cbz');
    link(path.join(outside, 'not-a-book'), 'shadow.cbz');
    link('/etc/passwd', 'passwd.cbz');
    link(path.join(root, 'Inside.cbz'), 'Absolute in.cbz');
    link('sub/Deep.cbz', 'Relative in.cbz');
    link('../Inside.cbz', 'sub/Up in.cbz');
    // Out of the library and back in: what counts is where the link finally leads.
    symlinkSync(path.join(root, 'Inside.cbz'), path.join(outside, 'Hop.cbz'));
    link(path.join(outside, 'Hop.cbz'), 'Out and back.cbz');
    link(path.join(root, 'sub'), 'Folder link.cbz');

    const { inProcess, blocking, offThread } = await everyWalker(root);
    expect(inProcess.map((f) => f.relPath)).toEqual([
      'Absolute in.cbz',
      'Inside.cbz',
      'Out and back.cbz',
      'Relative in.cbz',
      'sub/Deep.cbz',
      'sub/Up in.cbz',
    ]);
    // A link is catalogued with its target's size and time.
    expect(inProcess.find((f) => f.relPath === 'Absolute in.cbz')).toEqual({
      ...inProcess.find((f) => f.relPath === 'Inside.cbz'),
      relPath: 'Absolute in.cbz',
    });
    expect(inProcess.find((f) => f.relPath === 'Relative in.cbz')?.size).toBe(4);
    expect(blocking).toEqual(inProcess);
    expect(offThread).toEqual(inProcess);
  });

  it('a library root reached through a symbolic link: links within it are kept, links out of it are not', async () => {
    const real = libraryDir();
    const outside = path.dirname(real);
    const root = path.join(outside, 'via-link');
    symlinkSync(real, root);
    mkdirSync(path.join(real, 'series'));
    writeFileSync(path.join(real, 'series/Vol 1.cbz'), 'one');
    writeFileSync(path.join(outside, 'Secret.cbz'), 'secret');
    // Links made through the root's link, through its real path, and relative ones.
    symlinkSync(path.join(root, 'series/Vol 1.cbz'), path.join(real, 'series/Through root link.cbz'));
    symlinkSync(path.join(realpathSync(real), 'series/Vol 1.cbz'), path.join(real, 'series/Through real path.cbz'));
    symlinkSync('Vol 1.cbz', path.join(real, 'series/Relative.cbz'));
    symlinkSync('../../Secret.cbz', path.join(real, 'series/Relative out.cbz'));
    symlinkSync(path.join(outside, 'Secret.cbz'), path.join(real, 'series/Absolute out.cbz'));

    const { inProcess, blocking, offThread } = await everyWalker(root);
    expect(inProcess.map((f) => f.relPath)).toEqual([
      'series/Relative.cbz',
      'series/Through real path.cbz',
      'series/Through root link.cbz',
      'series/Vol 1.cbz',
    ]);
    expect(inProcess.every((f) => f.size === 3)).toBe(true);
    expect(blocking).toEqual(inProcess);
    expect(offThread).toEqual(inProcess);
    // The same library walked by its real path finds the same.
    expect(await collect(walkLibrary(real))).toEqual(inProcess);
  });
});
