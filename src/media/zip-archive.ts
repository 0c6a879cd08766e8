import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { MediaError, asMediaError, errorMessage, throwIfAborted } from './errors.js';
import type { MediaLimits } from './limits.js';

/** One file of a zip archive, with its name decoded and normalised to forward slashes. */
export interface ZipMember {
  name: string;
  size: number;
  compressedSize: number;
  encrypted: boolean;
  entry: Entry;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Stop after this many bytes (for header probing); the result is then a prefix of the entry. */
  headBytes?: number;
}

function normaliseName(raw: string): string {
  return raw.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
}

function isDirectory(entry: Entry, name: string): boolean {
  // MS-DOS directory attribute, for archivers that do not end directory names with a slash.
  return name.endsWith('/') || (entry.externalFileAttributes & 0x10) !== 0;
}

/**
 * A zip file opened by its central directory and kept open for random access to single entries: nothing is
 * extracted to disk, and entry names are never used as filesystem paths.
 */
export class ZipArchive {
  private readonly byName = new Map<string, ZipMember>();

  private constructor(
    private readonly zip: ZipFile,
    readonly members: readonly ZipMember[],
    private readonly limits: MediaLimits,
    private readonly label: string,
  ) {
    for (const member of members) if (!this.byName.has(member.name)) this.byName.set(member.name, member);
  }

  static async open(path: string, limits: MediaLimits): Promise<ZipArchive> {
    let zip: ZipFile;
    try {
      // decodeStrings is off so that a hostile name ("../x", "C:\x") is data we skip, not an error that
      // aborts the whole listing; names are decoded below exactly as yauzl would, minus the validation.
      zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: false });
    } catch (err) {
      throw asMediaError(err, 'corrupt', `${path}: not a readable zip archive`);
    }
    try {
      if (zip.entryCount > limits.maxEntries) {
        throw new MediaError('too_large', `${path}: ${zip.entryCount} entries exceed the limit of ${limits.maxEntries}`);
      }
      const members: ZipMember[] = [];
      let declaredTotal = 0;
      for await (const entry of zip.eachEntry()) {
        const rawName = entry.fileName as unknown as Buffer;
        const name = normaliseName(yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, rawName, entry.extraFields, false));
        if (isDirectory(entry, name)) continue;
        declaredTotal += entry.uncompressedSize;
        if (declaredTotal > limits.maxTotalBytes) {
          throw new MediaError('too_large', `${path}: declared uncompressed size exceeds ${limits.maxTotalBytes} bytes`);
        }
        members.push({
          name,
          size: entry.uncompressedSize,
          compressedSize: entry.compressedSize,
          encrypted: entry.isEncrypted(),
          entry,
        });
      }
      return new ZipArchive(zip, members, limits, path);
    } catch (err) {
      zip.close();
      throw asMediaError(err, 'corrupt', `${path}: broken zip central directory`);
    }
  }

  get(name: string): ZipMember | undefined {
    return this.byName.get(name);
  }

  /** Refuses entries we must not inflate: encrypted, unknown compression, or bigger than the limits allow. */
  assertReadable(member: ZipMember): void {
    const where = `${this.label}: entry "${member.name}"`;
    if (member.encrypted) throw new MediaError('encrypted', `${where} is encrypted`);
    if (!member.entry.canDecodeFileData()) {
      throw new MediaError('unsupported', `${where} uses unsupported compression method ${member.entry.compressionMethod}`);
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
    try {
      return await this.zip.openReadStreamPromise(member.entry);
    } catch (err) {
      throw asMediaError(err, 'corrupt', `${this.label}: entry "${member.name}"`);
    }
  }

  /**
   * Reads one entry into memory. The size limit is enforced on the bytes actually inflated too, since a
   * hostile archive can declare a small size and expand to a huge one.
   */
  async read(member: ZipMember, options: ReadOptions = {}): Promise<Buffer> {
    const { signal, headBytes } = options;
    throwIfAborted(signal);
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
    return (await this.read(member)).toString('utf8');
  }

  close(): void {
    this.zip.close();
  }
}
