import { describe, expect, it, vi } from 'vitest';
import { ProgressSaver, readPending, sendPending, type ProgressTransport } from './progress';
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

describe('sendPending: positions sent late', () => {
  it('sends a queued position with the time the reader was there, not the time it is sent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const calls: { bookId: string; recordedAt: number | undefined }[] = [];
      let up = false;
      const transport: ProgressTransport = {
        send: (bookId, _body, _keepalive, recordedAt) => {
          if (!up) return Promise.reject(new TypeError('Failed to fetch'));
          calls.push({ bookId, recordedAt });
          return Promise.resolve(true);
        },
      };
      const storage = memoryStorage();
      const saver = new ProgressSaver('book-1', transport, storage, 0);
      vi.setSystemTime(new Date('2026-11-27T10:00:00Z'));
      saver.moved({ kind: 'page', current_page: 10 });
      vi.setSystemTime(new Date('2026-11-27T10:00:05Z'));
      await saver.flush(false);
      vi.setSystemTime(new Date('2026-11-27T12:00:00Z'));
      up = true;
      expect(await sendPending(transport, storage)).toBe(1);
      expect(calls).toEqual([{ bookId: 'book-1', recordedAt: Date.parse('2026-11-27T10:00:00Z') }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("for one book, sends that book's positions and leaves the others queued", async () => {
    let up = false;
    const sent: string[] = [];
    const transport: ProgressTransport = {
      send: (bookId) => {
        if (!up) return Promise.reject(new TypeError('Failed to fetch'));
        sent.push(bookId);
        return Promise.resolve(true);
      },
    };
    const storage = memoryStorage();
    for (const id of ['book-1', 'book-2']) {
      const saver = new ProgressSaver(id, transport, storage, 0);
      saver.moved({ kind: 'page', current_page: 2 });
      await saver.flush(false);
    }
    up = true;
    expect(await sendPending(transport, storage, 'book-2')).toBe(1);
    expect(sent).toEqual(['book-2']);
    expect(readPending(storage).map((p) => p.bookId)).toEqual(['book-1']);
  });
});

describe('the outbox: every position read offline, each with its time and id', () => {
  it('keeps each position, sends them oldest first with their ids, and the same id again when an answer was lost', async () => {
    let up = false;
    let loseNextAnswer = false;
    const calls: { page: number; at: number | undefined; id: string | undefined }[] = [];
    const transport: ProgressTransport = {
      send: (_bookId, body, _keepalive, recordedAt, entryId) => {
        if (!up) return Promise.reject(new TypeError('Failed to fetch'));
        calls.push({ page: body.kind === 'page' ? body.current_page : -1, at: recordedAt, id: entryId });
        if (loseNextAnswer) {
          loseNextAnswer = false;
          return Promise.reject(new TypeError('Failed to fetch'));
        }
        return Promise.resolve(true);
      },
    };
    const storage = memoryStorage();
    const saver = new ProgressSaver('book-1', transport, storage, 0);
    for (const page of [2, 3, 4]) {
      saver.moved({ kind: 'page', current_page: page });
      await saver.flush(false);
    }
    const queued = readPending(storage);
    expect(queued.map((p) => p.body.kind === 'page' && p.body.current_page)).toEqual([2, 3, 4]);
    expect(new Set(queued.map((p) => p.id)).size).toBe(3);
    up = true;
    loseNextAnswer = true;
    // The first answer is lost: that position stays queued, the others go.
    expect(await sendPending(transport, storage)).toBe(2);
    expect(readPending(storage).map((p) => p.id)).toEqual([queued[0]!.id]);
    expect(await sendPending(transport, storage)).toBe(1);
    expect(calls.map((c) => [c.page, c.id])).toEqual([
      [2, queued[0]!.id],
      [3, queued[1]!.id],
      [4, queued[2]!.id],
      [2, queued[0]!.id],
    ]);
    expect(calls.every((c, i) => i === 0 || i === 3 || c.at! >= calls[i - 1]!.at!)).toBe(true);
    expect(readPending(storage)).toEqual([]);
  });
});
