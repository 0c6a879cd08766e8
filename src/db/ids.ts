import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Random bytes for ids, drawn 4 KiB at a time: uuid asks Web Crypto for 16 bytes an id, which took ~28 µs an id
 * on a scan's main thread (one per book: ~56 ms of a 2,000-book scan's main thread in a CPU profile).
 */
const pool = Buffer.allocUnsafe(4096);
let taken = pool.length;
/** uuid's own monotonic state, kept here because ids made with given random bytes skip it. */
let lastMs = -Infinity;
let seq = 0;

/** UUID v7: sorts by creation time (ids made in the same millisecond count on), so ids make stable tie-breakers. */
export const newId = (): string => {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const random = pool.subarray(taken, (taken += 16));
  const now = Date.now();
  if (now > lastMs) {
    // As uuid seeds it: 31 random bits, so the counter has room to count on within the millisecond.
    seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    lastMs = now;
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++;
  }
  return v7({ random, msecs: lastMs, seq });
};

export const nowIso = (): string => new Date().toISOString();

export const toBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
