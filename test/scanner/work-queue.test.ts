import { describe, expect, it } from 'vitest';
import { BYTES_PER_TRIP, FILES_PER_TRIP } from '../../src/libraries/scanning/scanner/analysis-trip.js';
import { WorkQueue, type WorkItem } from '../../src/libraries/scanning/scanner/work-queue.js';

const MB = 1024 * 1024;
const item = (relPath: string, size: number): WorkItem => ({ file: { relPath, size, mtimeMs: 0 }, existing: undefined });

describe('the work queue bounds what one trip to the media workers carries', () => {
  it('at most FILES_PER_TRIP files and BYTES_PER_TRIP bytes a trip, yet always one file, however large', async () => {
    const small = Array.from({ length: FILES_PER_TRIP + 4 }, (_, i) => item(`s${i}.cbz`, 1 * MB));
    const queue = WorkQueue.of([...small, item('big.cbz', BYTES_PER_TRIP * 3), item('after.cbz', 1 * MB)]);
    expect((await queue.take(FILES_PER_TRIP, BYTES_PER_TRIP)).length).toBe(FILES_PER_TRIP);
    expect((await queue.take(FILES_PER_TRIP, BYTES_PER_TRIP)).map((w) => w.file.relPath)).toEqual([
      's16.cbz',
      's17.cbz',
      's18.cbz',
      's19.cbz',
    ]);
    expect((await queue.take(FILES_PER_TRIP, BYTES_PER_TRIP)).map((w) => w.file.relPath)).toEqual(['big.cbz']);
    expect((await queue.take(FILES_PER_TRIP, BYTES_PER_TRIP)).map((w) => w.file.relPath)).toEqual(['after.cbz']);
    expect(await queue.take(FILES_PER_TRIP, BYTES_PER_TRIP)).toEqual([]);
  });

  it('stops a trip at the byte cap: 12 MB files, 32 MB a trip → two files', async () => {
    const queue = WorkQueue.of(Array.from({ length: 5 }, (_, i) => item(`b${i}.cbz`, 12 * MB)));
    const trips: number[] = [];
    for (let taken = await queue.take(16, 32 * MB); taken.length > 0; taken = await queue.take(16, 32 * MB)) trips.push(taken.length);
    expect(trips).toEqual([2, 2, 1]);
  });

  it('a first scan: waits for files while the walk goes on, and a cancelled walk drops what was not taken', async () => {
    const queue = new WorkQueue();
    const waiting = queue.take(4, 32 * MB);
    queue.push(item('a.cbz', 1));
    expect((await waiting).map((w) => w.file.relPath)).toEqual(['a.cbz']);
    queue.push(item('b.cbz', 1));
    queue.push(item('c.cbz', 1));
    queue.close({ dropPending: true });
    expect(await queue.take(4, 32 * MB)).toEqual([]);
  });
});
