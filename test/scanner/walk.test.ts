import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { walkLibrary, walkLibrarySync, type FoundFile } from '../../src/scanner/walk.js';
import { releaseWalkThread, walkLibraryOffThread, walkThreadRunning } from '../../src/scanner/walk-thread.js';
import { libraryDir } from './helpers.js';

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
  return root;
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

  it.skipIf(process.getuid?.() === 0)('an unreadable folder is reported and skipped; the walk goes on', async () => {
    const root = tree();
    chmodSync(path.join(root, 'b-series'), 0o000);
    try {
      const errors: string[] = [];
      const files = await collect(walkLibraryOffThread(root, { onError: (dir) => errors.push(dir) }));
      expect(errors).toEqual(['b-series']);
      expect(files.map((f) => f.relPath)).toEqual(['Loose One.cbz', 'a-series/Ünïcödé 01.epub', 'c-series/Book.cbr', 'c-series/Linked.cbr']);
    } finally {
      chmodSync(path.join(root, 'b-series'), 0o755);
    }
  });
});
