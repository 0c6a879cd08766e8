/** Bytes of derived images kept in memory, at most. */
const DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024;

export interface DerivedImage {
  data: Buffer;
  mediaType: string;
}

/**
 * The most recently served derived images (resized pages), keyed like the disk cache by the book's content
 * hash and the variant: the bytes for a key never change, so a copy in memory is never stale. Serving one
 * skips the disk cache's stat and read. Least recently used images go first once the budget is spent.
 */
export class DerivedImagesInMemory {
  private readonly images = new Map<string, DerivedImage>();
  private bytes = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  get(hash: string, variant: string): DerivedImage | undefined {
    const key = `${hash}/${variant}`;
    const image = this.images.get(key);
    if (image) {
      this.images.delete(key);
      this.images.set(key, image);
    }
    return image;
  }

  set(hash: string, variant: string, image: DerivedImage): void {
    if (image.data.length > this.budgetBytes / 8) return;
    const key = `${hash}/${variant}`;
    const old = this.images.get(key);
    if (old) this.bytes -= old.data.length;
    this.images.delete(key);
    this.images.set(key, image);
    this.bytes += image.data.length;
    for (const [k, v] of this.images) {
      if (this.bytes <= this.budgetBytes) break;
      this.images.delete(k);
      this.bytes -= v.data.length;
    }
  }
}
