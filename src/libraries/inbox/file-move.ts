import { createHash, randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Moving a file into a library without ever replacing one that is there, and without losing it on the way.
 *
 * On one filesystem: a hard link to the new name (refused atomically when the name is taken), then the old name
 * removed; where links are not supported (some FAT and network shares) a rename after a look for the name. Across
 * filesystems: copied to a hidden name beside the target while hashed, flushed to disk, the hash compared with the
 * one the inbox analysed, then linked to the new name, and only then the source removed.
 */
export class NameTaken extends Error {
  constructor(readonly target: string) {
    super(`${target} exists`);
    this.name = 'NameTaken';
  }
}

export class ContentChanged extends Error {
  constructor(
    readonly expected: string,
    readonly found: string,
  ) {
    super(`the copy's SHA-256 ${found} is not the analysed ${expected}`);
    this.name = 'ContentChanged';
  }
}

export type MoveWay = 'renamed' | 'copied';

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (err: unknown) => {
      if (code(err) === 'ENOENT') return false;
      throw err;
    },
  );
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r').catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => undefined); // not every filesystem syncs a directory
  await handle.close();
}

/**
 * The target's folders made. Node's recursive mkdir answers ENOENT where a folder cannot be made (a read-only
 * filesystem): the first missing one is made alone, to say why (EROFS, EACCES).
 */
async function makeFolders(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    if (code(err) !== 'ENOENT') throw err;
    let missing = folder;
    while (!(await exists(path.dirname(missing))) && path.dirname(missing) !== missing) missing = path.dirname(missing);
    await mkdir(missing);
    throw err;
  }
}

/** Links `from` to `to`; false when links are not supported here. Throws NameTaken when `to` exists. */
async function linkNoClobber(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if (code(err) === 'EEXIST') throw new NameTaken(to);
    if (code(err) === 'EPERM' || code(err) === 'ENOTSUP' || code(err) === 'EOPNOTSUPP' || code(err) === 'ENOSYS') return false;
    throw err;
  }
}

/**
 * Where links are not supported: the name is taken first by an empty file created exclusively (refused atomically
 * when the name exists), then the file renamed over that placeholder, which is ours.
 */
async function renameOverPlaceholder(from: string, to: string): Promise<void> {
  try {
    await (await open(to, 'wx')).close();
  } catch (err) {
    if (code(err) === 'EEXIST') throw new NameTaken(to);
    throw err;
  }
  try {
    await rename(from, to);
  } catch (err) {
    await unlink(to).catch(() => undefined);
    throw err;
  }
}

/** Copies with its SHA-256 computed on the way; flushed to disk before it returns. */
async function copyHashed(from: string, to: string, onBytes?: (bytes: number) => void): Promise<string> {
  const hash = createHash('sha256');
  const source = await open(from, 'r');
  const target = await open(to, 'wx').catch(async (err: unknown) => {
    await source.close();
    throw err;
  });
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let done = 0;
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      let written = 0;
      while (written < bytesRead) written += (await target.write(chunk, written, bytesRead - written)).bytesWritten;
      done += bytesRead;
      onBytes?.(done);
    }
    await target.sync();
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
  return hash.digest('hex');
}

/**
 * Moves `from` to `to` (folders made as needed). `expectedHash`: the content the file must have when it lands
 * (checked on a copy across filesystems; a rename does not change bytes).
 */
export async function moveNoClobber(
  from: string,
  to: string,
  expectedHash: string | null,
  onBytes?: (bytes: number) => void,
): Promise<MoveWay> {
  await makeFolders(path.dirname(to));
  try {
    if (await linkNoClobber(from, to)) {
      await unlink(from);
      await syncFolder(path.dirname(to));
      return 'renamed';
    }
    await renameOverPlaceholder(from, to);
    await syncFolder(path.dirname(to));
    return 'renamed';
  } catch (err) {
    if (code(err) !== 'EXDEV') throw err;
  }
  const partial = path.join(path.dirname(to), `.colophon-filing-${randomUUID()}.part`);
  try {
    const copied = await copyHashed(from, partial, onBytes);
    if (expectedHash !== null && copied !== expectedHash) throw new ContentChanged(expectedHash, copied);
    if (!(await linkNoClobber(partial, to))) await renameOverPlaceholder(partial, to);
    await syncFolder(path.dirname(to));
  } finally {
    await unlink(partial).catch(() => undefined);
  }
  await unlink(from);
  return 'copied';
}

/** `folder/name`, or `folder/name (2).ext`… when taken: for files moved aside (rejected, replaced, uploaded). */
export async function freeName(folder: string, name: string): Promise<string> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n++) {
    const candidate = path.join(folder, n === 1 ? name : `${stem} (${n})${ext}`);
    if (!(await exists(candidate))) return candidate;
  }
}
