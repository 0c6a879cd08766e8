import { open as openFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { constants as zlibConstants, inflateRaw, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { MediaError, asMediaError, errorMessage, throwIfAborted } from '../errors.js';
import type { MediaLimits } from '../limits.js';
import { directoryEntryOf, readCentralDirectory, type DirectoryEntry } from './zip-directory.js';
import { BlockCachedReader, MemoryReader, type ZipByteSource } from './zip-file-reader.js';
const inflateRawAsync = promisify(inflateRaw);
/**
 * Small inflates (ComicInfo.xml, OPF, container.xml, the first KiB of a page for its header) run synchronously:
 * for a few KiB, a thread-pool round trip and a zlib stream object cost far more than the inflating itself.
 * Always zlib: fflate did ComicInfo-sized entries for a while, but in a fresh worker it cost more CPU than zlib for
 * any ComicInfo.xml bigger than a few lines (500 of ~1 KiB: ~200 ms of CPU, its own JIT compilation included,
 * against ~100), and it accepts invalid Huffman tables that zlib refuses (a crafted 64 KiB entry took 48 s).
 */
const SYNC_INFLATE_BYTES = 64 * 1024;

function inflate(data: Buffer, options: { finishFlush?: number; maxOutputLength: number }): Promise<Buffer> {
  const headerProbe = options.finishFlush !== undefined; // a prefix: the output is a few times the input at most in practice
  if (data.length <= SYNC_INFLATE_BYTES && (headerProbe || options.maxOutputLength <= 4 * SYNC_INFLATE_BYTES)) {
    try {
      return Promise.resolve(inflateRawSync(data, options));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return inflateRawAsync(data, options);
}

const STORED = 0;
const DEFLATED = 8;

/** One file of a zip archive, with its name decoded and normalised to forward slashes. */
export interface ZipMember {
  name: string;
  size: number;
  compressedSize: number;
  encrypted: boolean;
  /** Compression method (0 stored, 8 deflated). */
  method: number;
  localHeaderOffset: number;
  /** yauzl's record, when yauzl read the directory (see ZipArchive.open). */
  entry?: Entry;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Stop after this many bytes (for header probing); the result is then a prefix of the entry. */
  headBytes?: number;
  /**
   * The caller reads the bytes at once and keeps none of them past the archive's close (header probing): an
   * archive parsed from memory may then return a view of its buffer instead of a copy.
   */
  transient?: boolean;
}

function normaliseName(raw: string): string {
  // Most names need neither replacement; testing first spares two new strings per entry of every book scanned.
  if (!raw.includes('\\') && !raw.startsWith('./')) return raw;
  return raw.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
}

function isDirectory(externalFileAttributes: number, name: string): boolean {
  // MS-DOS directory attribute, for archivers that do not end directory names with a slash.
  return name.endsWith('/') || (externalFileAttributes & 0x10) !== 0;
}

/**
 * A zip file opened by its central directory and kept open for random access to single entries: nothing is
 * extracted to disk, and entry names are never used as filesystem paths.
 */
export class ZipArchive {
  private readonly byName = new Map<string, ZipMember>();
  private readonly dataStarts = new Map<ZipMember, number | Promise<number>>();

  private constructor(
    /** Absent when the directory was read from memory without yauzl (readCentralDirectory). */
    private readonly zip: ZipFile | null,
    private readonly file: ZipByteSource,
    private readonly fileSize: number,
    readonly members: readonly ZipMember[],
    private readonly limits: MediaLimits,
    private readonly label: string,
  ) {
    for (const member of members) if (!this.byName.has(member.name)) this.byName.set(member.name, member);
  }

  /**
   * @param data the whole file, when the caller has already read it (then the file is not opened again);
   *   it must stay unchanged until `close()`. Its directory is read synchronously when it is an ordinary one
   *   (readCentralDirectory), else by yauzl, as files on disk are.
   */
  static async open(path: string, limits: MediaLimits, data?: Buffer): Promise<ZipArchive> {
    const direct = data ? readCentralDirectory(data) : null;
    if (data && direct) {
      const members = ZipArchive.members(direct, path, limits);
      return new ZipArchive(null, new MemoryReader(data), data.length, members, limits, path);
    }
    let zip: ZipFile;
    let file: ZipByteSource;
    try {
      ({ zip, file } = data ? await ZipArchive.fromReader(new MemoryReader(data), data.length) : await ZipArchive.fromFile(path));
    } catch (err) {
      throw asMediaError(err, 'corrupt', `${path}: not a readable zip archive`);
    }
    try {
      const records: Array<DirectoryEntry & { entry: Entry }> = [];
      if (zip.entryCount <= limits.maxEntries) {
        for await (const entry of zip.eachEntry()) records.push({ ...directoryEntryOf(entry), entry });
      }
      return new ZipArchive(zip, file, zip.fileSize, ZipArchive.members(records, path, limits, zip.entryCount), limits, path);
    } catch (err) {
      zip.close();
      throw asMediaError(err, 'corrupt', `${path}: broken zip central directory`);
    }
  }

  /** The files of a directory (not its folders), within the limits on entries and declared size. */
  private static members(
    records: ReadonlyArray<DirectoryEntry & { entry?: Entry }>,
    path: string,
    limits: MediaLimits,
    entryCount = records.length,
  ): ZipMember[] {
    if (entryCount > limits.maxEntries) {
      throw new MediaError('too_large', `${path}: ${entryCount} entries exceed the limit of ${limits.maxEntries}`);
    }
    const members: ZipMember[] = [];
    let declaredTotal = 0;
    for (const record of records) {
      const name = normaliseName(record.name);
      if (isDirectory(record.externalFileAttributes, name)) continue;
      declaredTotal += record.uncompressedSize;
      if (declaredTotal > limits.maxTotalBytes) {
        throw new MediaError('too_large', `${path}: declared uncompressed size exceeds ${limits.maxTotalBytes} bytes`);
      }
      members.push({
        name,
        size: record.uncompressedSize,
        compressedSize: record.compressedSize,
        encrypted: (record.generalPurposeBitFlag & 0x1) !== 0,
        method: record.method,
        localHeaderOffset: record.localHeaderOffset,
        ...(record.entry ? { entry: record.entry } : {}),
      });
    }
    return members;
  }

  private static async fromFile(path: string): Promise<{ zip: ZipFile; file: ZipByteSource }> {
    const handle = await openFile(path, 'r');
    try {
      const { size } = await handle.stat();
      return await ZipArchive.fromReader(new BlockCachedReader(handle), size);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  private static async fromReader(file: ZipByteSource, size: number): Promise<{ zip: ZipFile; file: ZipByteSource }> {
    // decodeStrings is off so that a hostile name ("../x", "C:\x") is data we skip, not an error that aborts
    // the whole listing; names are decoded below exactly as yauzl would, minus the validation.
    const zip = await yauzl.fromRandomAccessReaderPromise(file, size, { lazyEntries: true, autoClose: false, decodeStrings: false });
    return { zip, file };
  }

  get(name: string): ZipMember | undefined {
    return this.byName.get(name);
  }

  /** Refuses entries we must not inflate: encrypted, unknown compression, or bigger than the limits allow. */
  assertReadable(member: ZipMember): void {
    if (
      member.encrypted ||
      (member.method !== STORED && member.method !== DEFLATED) ||
      member.size > this.limits.maxEntryBytes ||
      member.size > this.limits.ratioCheckAboveBytes
    ) {
      this.refuseIfUnreadable(member);
    }
  }

  /** The checks again, to say which failed: the message is only built for an entry that may be refused. */
  private refuseIfUnreadable(member: ZipMember): void {
    const where = `${this.label}: entry "${member.name}"`;
    if (member.encrypted) throw new MediaError('encrypted', `${where} is encrypted`);
    if (member.method !== STORED && member.method !== DEFLATED) {
      throw new MediaError('unsupported', `${where} uses unsupported compression method ${member.method}`);
    }
    if (member.size > this.limits.maxEntryBytes) {
      throw new MediaError('too_large', `${where} declares ${member.size} bytes, over the limit of ${this.limits.maxEntryBytes}`);
    }
    const { ratioCheckAboveBytes, maxCompressionRatio } = this.limits;
    if (member.size > ratioCheckAboveBytes && member.size > member.compressedSize * maxCompressionRatio) {
      throw new MediaError('too_large', `${where} compression ratio exceeds ${maxCompressionRatio}:1`);
    }
  }

  async openStream(member: ZipMember): Promise<Readable> {
    this.assertReadable(member);
    if (!this.zip || !member.entry) throw new MediaError('unsupported', `${this.label}: entry "${member.name}" cannot be streamed`);
    try {
      return await this.zip.openReadStreamPromise(member.entry);
    } catch (err) {
      throw asMediaError(err, 'corrupt', `${this.label}: entry "${member.name}"`);
    }
  }

  private dataStart(member: ZipMember): number | Promise<number> {
    let start = this.dataStarts.get(member);
    if (start === undefined) {
      start = this.localDataStart(member) ?? this.headerFromYauzl(member);
      this.dataStarts.set(member, start);
    }
    return start;
  }

  private headerFromYauzl(member: ZipMember): Promise<number> {
    if (!this.zip || !member.entry) return Promise.reject(new Error(`local file header out of bounds: ${member.localHeaderOffset}`));
    return this.zip.readLocalFileHeaderPromise(member.entry, { minimal: true }).then((header) => header.fileDataStart);
  }

  /**
   * Where an entry's data starts, read from its local header in memory (null when the archive is not in memory or
   * the header lies past its end: yauzl then reads it and reports the damage). A page costs one header: yauzl's
   * way is a copy, a callback and a promise for 30 bytes that are already here. Same checks, same messages.
   */
  private localDataStart(member: ZipMember): number | null {
    const offset = member.localHeaderOffset;
    const data = this.file.memory;
    if (!data || offset < 0 || offset + 30 > data.length) return null;
    const signature = data.readUInt32LE(offset);
    if (signature !== 0x04034b50) throw new Error(`invalid local file header signature: 0x${signature.toString(16)}`);
    const fileDataStart = offset + 30 + data.readUInt16LE(offset + 26) + data.readUInt16LE(offset + 28);
    if (fileDataStart + member.compressedSize > this.fileSize) {
      throw new Error(`file data overflows file bounds: ${fileDataStart} + ${member.compressedSize} > ${this.fileSize}`);
    }
    return fileDataStart;
  }

  /**
   * `length` bytes of the file at `position`, in one positioned read. `transient`: the caller consumes them
   * before the archive closes (see ReadOptions), so an in-memory archive hands out a view, not a copy.
   */
  private async readRaw(position: number, length: number, transient = false): Promise<Buffer> {
    const view = transient ? this.file.view?.(position, length) : null;
    if (view) return view;
    const buffer = Buffer.allocUnsafe(length);
    const bytesRead = await this.file.readAt(buffer, 0, length, position);
    if (bytesRead !== length) throw new MediaError('corrupt', `${this.label}: the archive is truncated`);
    return buffer;
  }

  /**
   * The first `bytes` of a stored entry of an archive held in memory, as a view of its buffer (valid until
   * close, see ReadOptions.transient), checked as `read` checks it; null when the entry would have to be read
   * or inflated (then use `read`).
   */
  headAtHand(member: ZipMember, bytes: number): Buffer | null {
    if (member.method !== STORED || !this.file.view) return null;
    this.assertReadable(member);
    const cached = this.dataStarts.get(member);
    let start: number | null;
    if (typeof cached === 'number') start = cached;
    else if (cached) return null;
    else {
      try {
        start = this.localDataStart(member);
      } catch (err) {
        throw asMediaError(err, 'corrupt', `${this.label}: entry "${member.name}" is damaged`);
      }
      if (start === null) return null;
      this.dataStarts.set(member, start);
    }
    return this.file.view(start, Math.min(bytes, member.size));
  }

  /**
   * Where a stored entry's bytes lie in the file (checked as `read` checks them), so that they can be read again
   * without the archive open; null for a compressed entry.
   */
  async storedRange(member: ZipMember): Promise<{ start: number; length: number } | null> {
    if (member.method !== STORED) return null;
    this.assertReadable(member);
    try {
      return { start: await this.dataStart(member), length: member.size };
    } catch (err) {
      throw asMediaError(err, 'corrupt', `${this.label}: entry "${member.name}" is damaged`);
    }
  }

  /**
   * Reads one entry into memory. Whole entries bypass streams: a stored entry is one positioned read (as cheap
   * as reading a plain file), a deflated one is one read plus one inflate capped at the declared size, so an
   * entry that expands past what it declares (a bomb's trick) is cut off, not buffered.
   */
  async read(member: ZipMember, options: ReadOptions = {}): Promise<Buffer> {
    const { signal, headBytes, transient } = options;
    throwIfAborted(signal);
    this.assertReadable(member);
    const where = `${this.label}: entry "${member.name}"`;
    const { method } = member;
    try {
      if (method === STORED) {
        const length = headBytes === undefined ? member.size : Math.min(headBytes, member.size);
        return await this.readRaw(await this.dataStart(member), length, transient);
      }
      if (method === DEFLATED && headBytes !== undefined) {
        // Header probing: inflate a prefix of the compressed bytes; a sync flush returns what they hold.
        const prefix = await this.readRaw(await this.dataStart(member), Math.min(member.compressedSize, headBytes + 4096), true);
        const data = await inflate(prefix, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, member.size) });
        return data.subarray(0, headBytes);
      }
      if (method === DEFLATED) {
        if (member.compressedSize > this.limits.maxEntryBytes)
          throw new MediaError('too_large', `${where} is larger than ${this.limits.maxEntryBytes} bytes`);
        const compressed = await this.readRaw(await this.dataStart(member), member.compressedSize, true);
        throwIfAborted(signal);
        const data = await inflate(compressed, { maxOutputLength: Math.max(1, member.size) });
        if (data.length !== member.size)
          throw new MediaError('corrupt', `${where} inflates to ${data.length} bytes, not the ${member.size} it declares`);
        return data;
      }
    } catch (err) {
      if (err instanceof RangeError || (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new MediaError('too_large', `${where} inflates past its declared size`, { cause: err });
      }
      throw asMediaError(err, 'corrupt', `${where} is damaged`);
    }
    return this.readStreamed(member, options);
  }

  /** The first bytes of a compressed entry, inflating no more than needed. */
  private async readStreamed(member: ZipMember, options: ReadOptions): Promise<Buffer> {
    const { signal, headBytes } = options;
    const stream = await this.openStream(member);
    const limit = this.limits.maxEntryBytes;
    const chunks: Buffer[] = [];
    let total = 0;
    const onAbort = () => stream.destroy(new MediaError('aborted', 'aborted by the caller'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        total += chunk.length;
        if (headBytes !== undefined && total >= headBytes) break;
        if (total > limit) throw new MediaError('too_large', `${this.label}: entry "${member.name}" inflates past ${limit} bytes`);
      }
    } catch (err) {
      // yauzl checks the inflated bytes against the declared size: more bytes than declared is a bomb's trick.
      if (!(err instanceof MediaError) && /too many bytes/i.test(errorMessage(err))) {
        throw new MediaError('too_large', `${this.label}: entry "${member.name}" inflates past its declared size`, { cause: err });
      }
      throw asMediaError(err, 'corrupt', `${this.label}: entry "${member.name}" is damaged`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stream.destroy();
    }
    return Buffer.concat(chunks, total);
  }

  async readText(member: ZipMember, maxBytes: number): Promise<string> {
    if (member.size > maxBytes) throw new MediaError('too_large', `${this.label}: "${member.name}" is larger than ${maxBytes} bytes`);
    return (await this.read(member, { transient: true })).toString('utf8');
  }

  close(): void {
    this.zip?.close();
  }
}
