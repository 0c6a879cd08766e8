/**
 * Page images fetched and decoded ahead of the reader: the current view first, then the next `ahead` pages in
 * reading order, then the previous view (kept for a step back). Everything else is dropped (its blob URL
 * revoked, its request aborted), so memory stays bounded however long the book. A page the reader turns to is
 * then already decoded, and shows in the frame of the key press.
 */

export interface LoadedPage {
  index: number;
  /** A decoded image, ready to be put in the document. */
  image: HTMLImageElement;
  url: string;
}

export type PageLoader = (index: number, signal: AbortSignal) => Promise<LoadedPage>;

/** Page indices to hold, most wanted first: the view, `ahead` pages after it, then the view before it. */
export function preloadOrder(views: readonly number[][], viewIndex: number, ahead: number): number[] {
  const current = views[viewIndex] ?? [];
  const out: number[] = [...current];
  let count = 0;
  for (let v = viewIndex + 1; v < views.length && count < ahead; v++) {
    for (const page of views[v] ?? []) {
      if (count >= ahead) break;
      out.push(page);
      count += 1;
    }
  }
  for (const page of views[viewIndex - 1] ?? []) if (!out.includes(page)) out.push(page);
  return out;
}

interface Entry {
  controller: AbortController;
  promise: Promise<LoadedPage>;
  loaded?: LoadedPage;
}

export class PreloadQueue {
  private readonly entries = new Map<number, Entry>();
  private order: number[] = [];
  /** The pages on screen: nothing else starts while one of them is still on its way. */
  private view: number[] = [];
  /** Pages whose load failed since the last want(): not asked again until they are wanted again. */
  private failed = new Set<number>();
  private running = 0;

  constructor(
    private readonly loader: PageLoader,
    private readonly release: (page: LoadedPage) => void,
    private readonly concurrency = 3,
  ) {}

  /** The page's decoded image when it is ready. */
  ready(index: number): LoadedPage | undefined {
    return this.entries.get(index)?.loaded;
  }

  /** Pages held now (loaded or loading), for tests and the debug overlay. */
  held(): number[] {
    return [...this.entries.keys()].sort((a, b) => a - b);
  }

  /** The page's image, loading it first in line when it is not wanted yet. */
  get(index: number): Promise<LoadedPage> {
    const entry = this.entries.get(index);
    if (entry) return entry.promise;
    this.failed.delete(index);
    this.order = [index, ...this.order.filter((i) => i !== index)];
    return this.start(index);
  }

  /**
   * Holds exactly `order` (most wanted first): starts what is missing, drops the rest. The first `onScreen`
   * pages are the view the reader waits for: the pages after them start once those are in, so that they do not
   * share the network and the server's resizing with the page being waited for.
   */
  want(order: readonly number[], onScreen = 0): void {
    this.order = [...order];
    this.view = order.slice(0, onScreen);
    this.failed.clear();
    const keep = new Set(order);
    for (const [index, entry] of this.entries) {
      if (keep.has(index)) continue;
      this.entries.delete(index);
      if (entry.loaded) this.release(entry.loaded);
      else entry.controller.abort();
    }
    this.pump();
  }

  clear(): void {
    this.want([], 0);
  }

  private pump(): void {
    const waiting = this.view.some((index) => !this.failed.has(index) && !this.entries.get(index)?.loaded);
    for (const index of this.order) {
      if (this.running >= this.concurrency) return;
      if (waiting && !this.view.includes(index)) return;
      if (!this.entries.has(index) && !this.failed.has(index)) void this.start(index).catch(() => undefined);
    }
  }

  private start(index: number): Promise<LoadedPage> {
    const controller = new AbortController();
    this.running += 1;
    const promise = this.loader(index, controller.signal).then(
      (page) => {
        const entry = this.entries.get(index);
        if (entry?.promise === promise) entry.loaded = page;
        else this.release(page);
        return page;
      },
      (err: unknown) => {
        // A failed page is forgotten so that the next look at it tries again (not the queue's own pumping, which
        // would ask a page that keeps failing again and again).
        if (this.entries.get(index)?.promise === promise) {
          this.entries.delete(index);
          this.failed.add(index);
        }
        throw err;
      },
    );
    const entry: Entry = { controller, promise };
    this.entries.set(index, entry);
    void promise
      .catch(() => undefined)
      .finally(() => {
        this.running -= 1;
        this.pump();
      });
    return promise;
  }
}
