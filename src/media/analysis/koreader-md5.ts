import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isMainThread } from 'node:worker_threads';

/**
 * KOReader's document identity for progress sync (the "binary" method, util.partialMD5): MD5 over 1 KiB samples
 * at the offsets LuaJIT's `bit.lshift(1024, 2*i)` gives for i = -1..10, stopping at the first offset past the end.
 * LuaJIT masks a shift count to 5 bits and truncates to 32 bits, so i = -1 (shift 30) lands on offset 0, then
 * 1 KiB, 4 KiB, 16 KiB ... 1 GiB. A sample cut short by the end of the file is hashed as it is.
 */
const SAMPLE_BYTES = 1024;
export const KOREADER_SAMPLE_OFFSETS: readonly number[] = Array.from({ length: 12 }, (_, k) => {
  const shift = (2 * (k - 1)) & 31;
  return ((1024 << shift) >>> 0) & 0xffffffff;
});

/** From bytes already in memory (the whole-file analysis path). */
export function koreaderPartialMd5(data: Uint8Array): string {
  const md5 = createHash('md5');
  for (const offset of KOREADER_SAMPLE_OFFSETS) {
    if (offset >= data.length) break;
    md5.update(data.subarray(offset, Math.min(offset + SAMPLE_BYTES, data.length)));
  }
  return md5.digest('hex');
}

/** From a file by positioned reads (~12 KiB); blocking in a worker thread, asynchronous on the main thread. */
export async function koreaderPartialMd5File(path: string): Promise<string> {
  const md5 = createHash('md5');
  const sample = Buffer.allocUnsafe(SAMPLE_BYTES);
  if (!isMainThread) {
    const fd = openSync(path, 'r');
    try {
      for (const offset of KOREADER_SAMPLE_OFFSETS) {
        const bytesRead = readFully(sample, (buffer, at, length) => readSync(fd, buffer, at, length, offset + at));
        if (bytesRead === 0) break;
        md5.update(sample.subarray(0, bytesRead));
      }
    } finally {
      closeSync(fd);
    }
    return md5.digest('hex');
  }
  const handle = await open(path, 'r');
  try {
    for (const offset of KOREADER_SAMPLE_OFFSETS) {
      let total = 0;
      while (total < SAMPLE_BYTES) {
        const { bytesRead } = await handle.read(sample, total, SAMPLE_BYTES - total, offset + total);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      if (total === 0) break;
      md5.update(sample.subarray(0, total));
    }
  } finally {
    await handle.close();
  }
  return md5.digest('hex');
}

/** KOReader's "filename" document id: MD5 of the file name (no folder). */
export function koreaderNameMd5(fileName: string): string {
  return createHash('md5').update(fileName).digest('hex');
}

function readFully(buffer: Buffer, read: (buffer: Buffer, at: number, length: number) => number): number {
  let total = 0;
  while (total < buffer.length) {
    const n = read(buffer, total, buffer.length - total);
    if (n === 0) break;
    total += n;
  }
  return total;
}
