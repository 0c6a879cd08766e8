import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';

const BLOCK_BYTES = 64 * 1024;
const MAX_CACHED_BLOCKS = 64;
const STREAM_CHUNK_BYTES = 256 * 1024;
/** Reads at least this large skip the block cache: they are entry data, read once. */
const DIRECT_READ_BYTES = BLOCK_BYTES;

/**
 * The file under yauzl. yauzl reads a central directory record by record (two small reads per entry) and,
 * by default, every read goes through a new stream; here small reads are served from 64 KiB blocks read once,
 * so listing a 200-page book costs a handful of syscalls instead of hundreds of streams.
 */
export class BlockCachedReader extends yauzl.RandomAccessReader implements ZipByteSource {
  private readonly blocks = new Map<number, Promise<Buffer>>();

  constructor(readonly handle: FileHandle) {
    super();
  }

  private block(index: number): Promise<Buffer> {
    let block = this.blocks.get(index);
    if (block) {
      // Map order is insertion order: re-inserting marks the block as recently used.
      this.blocks.delete(index);
      this.blocks.set(index, block);
      return block;
    }
    block = (async () => {
      const buffer = Buffer.allocUnsafe(BLOCK_BYTES);
      const { bytesRead } = await this.handle.read(buffer, 0, BLOCK_BYTES, index * BLOCK_BYTES);
      return buffer.subarray(0, bytesRead);
    })();
    block.catch(() => this.blocks.delete(index));
    this.blocks.set(index, block);
    if (this.blocks.size > MAX_CACHED_BLOCKS) {
      const oldest = this.blocks.keys().next().value;
      if (oldest !== undefined) this.blocks.delete(oldest);
    }
    return block;
  }

  async readAt(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    if (length >= DIRECT_READ_BYTES) return (await this.handle.read(buffer, offset, length, position)).bytesRead;
    let copied = 0;
    while (copied < length) {
      const at = position + copied;
      const block = await this.block(Math.floor(at / BLOCK_BYTES));
      const start = at % BLOCK_BYTES;
      if (start >= block.length) break;
      copied += block.copy(buffer, offset + copied, start, Math.min(block.length, start + length - copied));
    }
    return copied;
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    this.readAt(buffer, offset, length, position).then(
      (bytesRead) => callback(null, bytesRead),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // Positioned reads on the shared handle. An fs read stream over the same descriptor would close it when
    // destroyed (autoClose only governs closing at the end), and the archive must stay open for the next page.
    const handle = this.handle;
    async function* range(): AsyncGenerator<Buffer> {
      let position = start;
      while (position < end) {
        const length = Math.min(STREAM_CHUNK_BYTES, end - position);
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        if (bytesRead === 0) throw new Error('unexpected end of file');
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    }
    return Readable.from(range(), { objectMode: false });
  }

  override close(callback: (err: Error | null) => void): void {
    this.blocks.clear();
    this.handle.close().then(
      () => callback(null),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

/** What ZipArchive reads through: yauzl's reader interface plus positioned reads into a caller's buffer. */
export interface ZipByteSource extends yauzl.RandomAccessReader {
  readAt(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  /**
   * `length` bytes at `position` without a copy, when the bytes are already in memory (null otherwise, or when
   * the range runs past the end). The view is only valid until the source is closed: callers use it for bytes
   * they consume at once (inflating, header probing) and never hand it out.
   */
  view?(position: number, length: number): Buffer | null;
  /** The whole file, when it is in memory (same validity as `view`): small reads without a view object each. */
  readonly memory?: Buffer;
}

/**
 * A zip file whose bytes are already in memory: analysis reads a small book once (hashing it on the way) and
 * parses it from that buffer, with no second open and no thread-pool round trip per page. Every read copies,
 * so nothing handed out aliases the buffer, which the caller reuses for the next book; only `view` does not,
 * for bytes consumed before the archive closes.
 */
export class MemoryReader extends yauzl.RandomAccessReader implements ZipByteSource {
  constructor(private readonly data: Buffer) {
    super();
  }

  get memory(): Buffer {
    return this.data;
  }

  readAtSync(buffer: Buffer, offset: number, length: number, position: number): number {
    if (position >= this.data.length) return 0;
    return this.data.copy(buffer, offset, position, Math.min(this.data.length, position + length));
  }

  async readAt(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    return this.readAtSync(buffer, offset, length, position);
  }

  view(position: number, length: number): Buffer | null {
    if (position < 0 || length < 0 || position + length > this.data.length) return null;
    return this.data.subarray(position, position + length);
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    // yauzl expects the callback later, not during the call.
    const bytesRead = this.readAtSync(buffer, offset, length, position);
    queueMicrotask(() => callback(null, bytesRead));
  }

  override _readStreamForRange(start: number, end: number): Readable {
    if (end > this.data.length) throw new Error('unexpected end of file');
    const data = this.data;
    function* range(): Generator<Buffer> {
      for (let position = start; position < end; position += STREAM_CHUNK_BYTES) {
        yield Buffer.from(data.subarray(position, Math.min(end, position + STREAM_CHUNK_BYTES)));
      }
    }
    return Readable.from(range(), { objectMode: false });
  }

  override close(callback: (err: Error | null) => void): void {
    queueMicrotask(() => callback(null));
  }
}
