import { describe, expect, it } from 'vitest';
import { preloadOrder, PreloadQueue, type LoadedPage } from './preload';

const image = {} as HTMLImageElement;

/** A loader whose loads the test settles by hand, recording what was asked and aborted. */
function manualLoader() {
  const asked: number[] = [];
  const aborted: number[] = [];
  const pending = new Map<number, (p: LoadedPage) => void>();
  const loader = (index: number, signal: AbortSignal) =>
    new Promise<LoadedPage>((resolve, reject) => {
      asked.push(index);
      pending.set(index, resolve);
      signal.addEventListener('abort', () => {
        aborted.push(index);
        reject(new Error('aborted'));
      });
    });
  const settle = async (index: number) => {
    pending.get(index)?.({ index, image, url: `blob:${index}` });
    await new Promise((r) => setTimeout(r, 0));
  };
  return { loader, asked, aborted, settle };
}

describe('preloadOrder', () => {
  const single = [[0], [1], [2], [3], [4], [5], [6]];
  it('the view first, then the next N pages, then the previous view', () => {
    expect(preloadOrder(single, 2, 3)).toEqual([2, 3, 4, 5, 1]);
    expect(preloadOrder(single, 0, 3)).toEqual([0, 1, 2, 3]);
    expect(preloadOrder(single, 6, 3)).toEqual([6, 5]);
    expect(preloadOrder(single, 3, 0)).toEqual([3, 2]);
  });
  it('counts pages, not views, in double-page mode', () => {
    expect(preloadOrder([[0], [1, 2], [3, 4], [5, 6]], 1, 3)).toEqual([1, 2, 3, 4, 5, 0]);
  });
});

describe('PreloadQueue', () => {
  it('loads in order of want, a few at a time, and keeps what is done', async () => {
    const l = manualLoader();
    const released: string[] = [];
    const queue = new PreloadQueue(l.loader, (p) => released.push(p.url), 2);
    queue.want([0, 1, 2, 3]);
    expect(l.asked).toEqual([0, 1]);
    await l.settle(0);
    expect(l.asked).toEqual([0, 1, 2]);
    expect(queue.ready(0)?.url).toBe('blob:0');
    expect(queue.ready(1)).toBeUndefined();
  });

  it('the pages on screen come first: the pages ahead start only once those are in', async () => {
    const l = manualLoader();
    const queue = new PreloadQueue(l.loader, () => undefined, 3);
    queue.want([4, 5, 6, 7, 3], 2);
    expect(l.asked).toEqual([4, 5]);
    await l.settle(4);
    expect(l.asked).toEqual([4, 5]);
    await l.settle(5);
    expect(l.asked).toEqual([4, 5, 6, 7, 3]);
    // A view already in: the pages ahead start at once.
    queue.want([6, 7, 8, 5], 1);
    expect(l.asked).toEqual([4, 5, 6, 7, 3]);
    await l.settle(6);
    expect(l.asked).toEqual([4, 5, 6, 7, 3, 8]);
  });

  it('drops pages no longer wanted: aborts their requests and releases their images', async () => {
    const l = manualLoader();
    const released: string[] = [];
    const queue = new PreloadQueue(l.loader, (p) => released.push(p.url), 3);
    queue.want([0, 1, 2]);
    await l.settle(0);
    queue.want([2, 3]);
    expect(released).toEqual(['blob:0']);
    expect(l.aborted).toEqual([1]);
    await new Promise((r) => setTimeout(r, 0));
    expect(l.asked).toContain(3);
    expect(queue.held()).toEqual([2, 3]);
  });

  it('get() jumps the queue for a page the reader turned to', async () => {
    const l = manualLoader();
    const queue = new PreloadQueue(l.loader, () => undefined, 1);
    queue.want([0, 1, 2]);
    const wanted = queue.get(5);
    expect(l.asked).toEqual([0, 5]);
    await l.settle(5);
    await expect(wanted).resolves.toMatchObject({ index: 5 });
  });

  it('a failed page is tried again the next time it is wanted', async () => {
    let calls = 0;
    const queue = new PreloadQueue(
      async (index) => {
        calls += 1;
        if (calls === 1) throw new Error('offline');
        return { index, image, url: 'blob:x' };
      },
      () => undefined,
    );
    await expect(queue.get(0)).rejects.toThrow('offline');
    await expect(queue.get(0)).resolves.toMatchObject({ index: 0 });
  });

  it('a page that fails is not asked again and again while it stays wanted: once per want()', async () => {
    const asked: number[] = [];
    const queue = new PreloadQueue(
      async (index) => {
        asked.push(index);
        throw new Error('422');
      },
      () => undefined,
    );
    queue.want([0, 1], 1);
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
    expect(asked.sort()).toEqual([0, 1]);
    queue.want([0, 1], 1);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(asked.sort()).toEqual([0, 0, 1, 1]);
  });
});
