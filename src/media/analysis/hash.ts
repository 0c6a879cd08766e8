import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';
import { asMediaError, throwIfAborted } from '../errors.js';

/** Large reads into one reused buffer: far fewer syscalls and no garbage per chunk, compared to a read stream. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * How far into its allocation a read buffer starts: never at the start of a page. The kernel copies a read from
 * the page cache (page-aligned pages) with `rep movsb`, which on AMD Zen cores runs far slower when source and
 * destination share their offset within a page, and a large fresh buffer is page-aligned. Read + SHA-256 of 1,000
 * of the bench's books on this project's EPYC machines: 1.41–1.66 s of CPU into a page-aligned buffer, 1.03–1.11 s
 * 64 bytes in (the bare read+hash floor, whose 1 MiB buffer happens not to be page-aligned, took 1.03–1.07 s).
 */
const READ_OFFSET = 64;

function readBuffer(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(bytes + READ_OFFSET).subarray(READ_OFFSET);
}

/**
 * The block buffer of blocking hashing in a worker thread, reused from file to file (the reads are synchronous,
 * so one call at a time uses it). A fresh 1 MiB buffer per file measured about 15% more CPU per book, all of it
 * page faults on new memory: the scan's whole-file reads reuse their buffers, and the read+hash baseline must
 * not be slower than they are.
 */
let syncChunk: Buffer | undefined;

/**
 * SHA-256 of a whole file, lowercase hex, read in 1 MiB blocks; cancellable between blocks. In a worker thread
 * the reads block (see readIntoSync): the scan benchmark's read+hash baseline runs through here, and it should
 * be the fastest read we have, not a slower one that flatters the scan.
 */
export async function hashFile(path: string, signal?: AbortSignal): Promise<string> {
  throwIfAborted(signal);
  const hash = createHash('sha256');
  if (!isMainThread) {
    try {
      readIntoSync(path, (syncChunk ??= readBuffer(CHUNK_BYTES)), Infinity, hash, true);
    } catch (err) {
      throw asMediaError(err, 'corrupt', path);
    }
    return hash.digest('hex');
  }
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw asMediaError(err, 'corrupt', path);
  }
  try {
    for (;;) {
      throwIfAborted(signal);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } catch (err) {
    throw asMediaError(err, 'corrupt', path);
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/**
 * Buffers for whole-file reads, reused from book to book (a worker analyses one book at a time), so a scan
 * does not fault in fresh memory per book. Only modest ones are kept: an idle thread holds at most this much.
 */
const spareBuffers: Buffer[] = [];
const MAX_SPARE_BUFFERS = 2;
const MAX_SPARE_BUFFER_BYTES = 4 * 1024 * 1024;

export interface WholeFile {
  /** The file's bytes; valid until `release()`. */
  data: Buffer;
  hash: string;
  /** Returns the buffer for reuse: nothing may refer to `data` afterwards. */
  release(): void;
}

/**
 * Reads a whole file of about `expectedBytes` into a reused buffer, in 1 MiB blocks, hashing (SHA-256) as it
 * goes. Returns null when the file turns out larger than expected (it changed since it was stat()ed): the
 * caller then takes the streaming path.
 */
export async function readAndHashFile(path: string, expectedBytes: number, signal?: AbortSignal): Promise<WholeFile | null> {
  throwIfAborted(signal);
  // One byte of room tells a file that grew from one that is exactly the expected size.
  const capacity = expectedBytes + 1;
  const index = spareBuffers.findIndex((buffer) => buffer.length >= capacity);
  // Round up so that a buffer serves the next, slightly larger, book too.
  let buffer = index >= 0 ? spareBuffers.splice(index, 1)[0]! : readBuffer(Math.ceil(capacity / CHUNK_BYTES) * CHUNK_BYTES);
  const release = () => {
    if (spareBuffers.length < MAX_SPARE_BUFFERS && buffer.length <= MAX_SPARE_BUFFER_BYTES) spareBuffers.push(buffer);
    buffer = Buffer.alloc(0);
  };
  const hash = createHash('sha256');
  let total: number;
  try {
    total = isMainThread ? await readInto(path, buffer, capacity, hash, signal) : readIntoSync(path, buffer, capacity, hash);
  } catch (err) {
    release();
    throw asMediaError(err, 'corrupt', path);
  }
  if (total > expectedBytes) {
    release();
    return null;
  }
  return { data: buffer.subarray(0, total), hash: hash.digest('hex'), release };
}

type Hash = ReturnType<typeof createHash>;

async function readInto(path: string, buffer: Buffer, capacity: number, hash: Hash, signal?: AbortSignal): Promise<number> {
  const handle = await open(path, 'r');
  let total = 0;
  try {
    for (;;) {
      throwIfAborted(signal);
      const length = Math.min(CHUNK_BYTES, capacity - total);
      if (length === 0) break;
      const { bytesRead } = await handle.read(buffer, total, length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(total, total + bytesRead));
      total += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return total;
}

/**
 * The same in blocking calls, for worker threads: a worker analyses one book at a time and has nothing else to
 * do meanwhile, and a blocking read skips the trip through libuv's thread pool (four threads shared by the
 * whole process) per call. Cancellation still works: the pool stops a worker that overruns or is cancelled.
 */
function readIntoSync(path: string, buffer: Buffer, capacity: number, hash: Hash, reuse = false): number {
  const fd = openSync(path, 'r');
  let total = 0;
  try {
    for (;;) {
      // `reuse`: hash only, every block read into the start of the buffer.
      const at = reuse ? 0 : total;
      const length = Math.min(CHUNK_BYTES, capacity - total);
      if (length === 0) break;
      const bytesRead = readSync(fd, buffer, at, length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(at, at + bytesRead));
      total += bytesRead;
    }
  } finally {
    closeSync(fd);
  }
  return total;
}
