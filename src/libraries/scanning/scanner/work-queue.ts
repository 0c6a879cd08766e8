import type { BookIndexRow } from './repository.js';
import type { FoundFile } from './walk.js';

/** One file for the analysis loops, with its catalog row when it has one. */
export interface WorkItem {
  file: FoundFile;
  existing: BookIndexRow | undefined;
  /** A soft-deleted book whose file is back unchanged: restore without analysis. */
  restoreOnly?: boolean;
}

/** Work handed out to the analysis loops: all of it at once, or as a walk finds it (a library's first scan). */
export class WorkQueue {
  private readonly items: WorkItem[] = [];
  private next = 0;
  private closed = false;
  private wake: (() => void) | null = null;

  static of(items: readonly WorkItem[]): WorkQueue {
    const queue = new WorkQueue();
    for (const item of items) queue.push(item);
    queue.close();
    return queue;
  }

  push(item: WorkItem): void {
    this.items.push(item);
    this.wakeUp();
  }

  /** No more items; `dropPending` also forgets those not yet taken. */
  close(options: { dropPending?: boolean } = {}): void {
    if (options.dropPending) this.next = this.items.length;
    this.closed = true;
    this.wakeUp();
  }

  /**
   * Up to `count` items of at most `bytes` together (at least one item), waiting for one while the queue is
   * open; empty once it is closed and empty.
   */
  async take(count: number, bytes: number): Promise<WorkItem[]> {
    for (;;) {
      if (this.next < this.items.length) {
        const taken: WorkItem[] = [];
        let size = 0;
        while (this.next < this.items.length && taken.length < count) {
          const item = this.items[this.next]!;
          if (taken.length > 0 && size + item.file.size > bytes) break;
          size += item.file.size;
          taken.push(item);
          this.next++;
        }
        return taken;
      }
      if (this.closed) return [];
      await new Promise<void>((resolve) => {
        const previous = this.wake;
        this.wake = () => {
          previous?.();
          resolve();
        };
      });
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
