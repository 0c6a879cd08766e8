import { describe, expect, it } from 'vitest';
import { ProgressSaver, sendPending, type ProgressTransport } from './progress';
import { memoryStorage } from './memory-storage';

describe('ProgressSaver: queued positions', () => {
  it('says when a position could not be sent, and again once the queue has sent it', async () => {
    let up = false;
    const transport: ProgressTransport = { send: () => (up ? Promise.resolve(true) : Promise.reject(new TypeError('Failed to fetch'))) };
    const storage = memoryStorage();
    const saver = new ProgressSaver('book-1', transport, storage, 0);
    const changes: boolean[] = [];
    saver.subscribe(() => changes.push(saver.queued));
    saver.moved({ kind: 'page', current_page: 3 });
    await saver.flush(false);
    expect(saver.queued).toBe(true);
    up = true;
    await sendPending(transport, storage);
    saver.recheck();
    expect(saver.queued).toBe(false);
    expect(changes).toEqual([true, false]);
  });
});
