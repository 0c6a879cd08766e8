/**
 * Buffers for the bytes of pages read straight from their files, given back once their answer has been handed to
 * the operating system and lent again to the next page.
 *
 * Why: a page's bytes live outside V8's heap, and V8 counts such memory towards its next full collection. Fresh
 * buffers for every page (~66 KB to a few MB, thousands a second) made a server that had scanned a library run a
 * full mark-compact every ~100 ms under page load — 108 in 20 s where a fresh process ran 14 — and serve half the
 * pages per second it serves fresh (issue 35, docs/benchmarks.md). Reused buffers leave nothing for it to count.
 *
 * Sizes are powers of two from 64 KiB to 16 MiB; a larger page gets a buffer of its own. At most 32 MiB is kept,
 * and all of it is dropped after 30 s without a page, so an idle server holds none of it.
 */
const MIN_SHIFT = 16;
const MAX_SHIFT = 24;
const MAX_POOLED_BYTES = 32 * 1024 * 1024;
const IDLE_MS = 30_000;

export class PageBuffers {
  /** Free buffers by size class (index: log2 of the size − MIN_SHIFT). */
  private readonly free: Buffer[][] = Array.from({ length: MAX_SHIFT - MIN_SHIFT + 1 }, () => []);
  /** Buffers lent and not given back: a buffer given back twice, or never lent, is not kept. */
  private readonly lent = new WeakSet<Buffer>();
  private pooledBytes = 0;
  private lastUse = 0;
  private idleCheck: NodeJS.Timeout | undefined;

  /** A buffer of at least `size` bytes, its contents arbitrary. */
  take(size: number): Buffer {
    this.lastUse = performance.now();
    const shift = Math.max(MIN_SHIFT, 32 - Math.clz32(Math.max(size, 1) - 1));
    if (shift > MAX_SHIFT) return Buffer.allocUnsafeSlow(size);
    const buffer = this.free[shift - MIN_SHIFT]!.pop();
    if (buffer) this.pooledBytes -= buffer.length;
    const lent = buffer ?? Buffer.allocUnsafeSlow(2 ** shift);
    this.lent.add(lent);
    return lent;
  }

  /** Gives back a buffer from `take` that nothing reads any more. */
  give(buffer: Buffer): void {
    if (!this.lent.delete(buffer)) return;
    if (this.pooledBytes + buffer.length > MAX_POOLED_BYTES) return;
    this.free[Math.log2(buffer.length) - MIN_SHIFT]!.push(buffer);
    this.pooledBytes += buffer.length;
    this.idleCheck ??= setInterval(() => this.dropWhenIdle(), IDLE_MS).unref();
  }

  /** Bytes kept for reuse (for tests). */
  get kept(): number {
    return this.pooledBytes;
  }

  private dropWhenIdle(): void {
    if (performance.now() - this.lastUse < IDLE_MS) return;
    for (const list of this.free) list.length = 0;
    this.pooledBytes = 0;
    clearInterval(this.idleCheck);
    this.idleCheck = undefined;
  }
}
