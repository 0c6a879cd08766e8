import { close, constants, fstat, open, read } from 'node:fs';
import { readCentralDirectory } from '../../media/archives/zip-directory.js';
import { imageTypeFromName, sniffImageType } from '../../media/images/image-types.js';
import { DEFAULT_LIMITS } from '../../media/limits.js';
import type { BookFile } from '../../catalog/index.js';
import { PageBuffers } from './page-buffers.js';

/**
 * A page turn opens, reads and closes a file: through callbacks, one promise each, as `fs.readFile` does. The
 * promise API's FileHandle (an object, its close promise and its finaliser) cost a page ~30 µs more of CPU.
 */
const openFile = (path: string): Promise<number> =>
  new Promise((resolve, reject) => open(path, constants.O_RDONLY | constants.O_NOFOLLOW, (err, fd) => (err ? reject(err) : resolve(fd))));
const readAt = (fd: number, buffer: Buffer, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => read(fd, buffer, 0, length, position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))));
const statOf = (fd: number): Promise<{ isFile(): boolean; size: number; mtimeMs: number }> =>
  new Promise((resolve, reject) => fstat(fd, (err, info) => (err ? reject(err) : resolve(info))));
/** Not awaited: the answer need not wait for the descriptor's release (and a failed close leaks nothing). */
const release = (fd: number): void => close(fd, () => undefined);

interface KnownBook {
  /** The file as opened when its directory was read: its path (resolved, inside the library), size and time. */
  file: BookFile;
  /**
   * Page n's entry at [3(n-1)]: the offset of its local header, its length, and the FNV-1a hash of its name; NaN
   * offset for a page that is not stored as it is (compressed, encrypted, too large), which the archive reads.
   * Empty: nothing of the file is known.
   */
  places: Float64Array;
  /**
   * Whether each read checks the file's size and time (an fstat) rather than only the local header it lands on:
   * for archives whose local headers do not say enough (sizes in a data descriptor, names not plain ASCII).
   */
  statEachRead: boolean;
}

/** What `read` needs of the book, asked only when its directory must be read. */
export interface PageFileSource {
  /** The book's file, resolved through symlinks and checked to lie inside its library. */
  file(): Promise<BookFile>;
  /** The stored page list's entry names, in reading order (page n is entry n - 1). */
  pageNames(): Promise<readonly string[]>;
}

export interface StoredPage {
  data: Buffer;
  mediaType: string;
  /** Gives the bytes' buffer back for another page once nothing reads them (the answer is sent). Not calling it is safe. */
  release(): void;
}

/**
 * Books whose page places are remembered (a few hundred bytes each: 16,384 books are some 8 MB), least
 * recently learnt forgotten first. A larger library is served all the same, with one directory read more for a
 * book that was forgotten.
 */
const MAX_BOOKS = 16_384;
/** Bytes read from a book's end to find its directory: the directory of a 250-page book fits. */
const TAIL_BYTES = 16 * 1024;
/** A directory larger than this (some tens of thousands of entries) is left to the archive. */
const MAX_DIRECTORY_BYTES = 4 * 1024 * 1024;
/** Read past a local header with the entry: its name and extra field, when they are no longer than this. */
const HEADER_SLACK = 512;
const LOCAL_HEADER_BYTES = 30;
const LOCAL_SIGNATURE = 0x04034b50;
const END_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const END_BYTES = 22;
const STORED = 0;
const ENCRYPTED = 0x1;
const DATA_DESCRIPTOR = 0x8;
const NOT_LEARNT = new Float64Array(0);

/** ZipArchive's names: backslashes as slashes, no leading `./`. */
function normaliseName(raw: string): string {
  if (!raw.includes('\\') && !raw.startsWith('./')) return raw;
  return raw.replaceAll('\\', '/').replace(/^(\.\/)+/, '');
}

/** A name whose bytes in the archive are its characters: printable ASCII that normalising leaves alone. */
const plainName = (name: string): boolean => /^[\x20-\x5b\x5d-\x7e]*$/.test(name) && !name.startsWith('./');

/** FNV-1a, 32 bits, over `bytes[start, end)`, or over a plain name's characters (the same bytes). */
function nameHash(source: Buffer | string, start = 0, end = source.length): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    hash ^= typeof source === 'string' ? source.charCodeAt(i) : source[i]!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The end record's place in `tail` (the last bytes of the file), by zip-directory's rule; -1 if not in it. */
function endRecord(tail: Buffer): number {
  for (let i = tail.length - END_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== END_SIGNATURE) continue;
    return tail.readUInt16LE(i + 20) === tail.length - i - END_BYTES ? i : -1;
  }
  return -1;
}

const sameFile = (a: BookFile, b: BookFile): boolean => a.absolutePath === b.absolutePath && a.size === b.size && a.mtimeMs === b.mtimeMs;

/**
 * Where the pages of CBZ books lie in their files, so that the original bytes of a page stored as it is (the
 * usual CBZ) are read like a plain file — open, one positioned read, close — with no archive opened and no path
 * resolved again, whichever of thousands of books a reader turns to.
 *
 * A book's places are learnt on its first page request, from its central directory: its last 16 KiB are read,
 * and the directory is parsed by the media engine's own parser (`readCentralDirectory`, the scanner's), rebased
 * (the directory and its end record alone are an archive whose directory starts at 0). Only the ordinary case
 * is learnt, as that parser reads it; anything else (ZIP64, a long comment, a page the directory lacks, a
 * compressed or encrypted page) is left to the archive (ReaderPool), which also reports a damaged book with the
 * usual errors.
 *
 * The file is the one resolved (through symlinks, checked to lie inside its library) when the places were
 * learnt, and it is opened without following a symlink (a link put in its place fails, and the book's path is
 * resolved and checked again). Each read checks the local header it lands on as the archive does, and more: it
 * must be the header of a stored, unencrypted entry of the page's name and length. So a book rewritten since is
 * noticed without an fstat (the read stays at `fs.readFile`'s cost less one system call): its header there is
 * another or none, and the book is forgotten, read through the archive and learnt again. Archives whose local
 * headers cannot tell (sizes in data descriptors, names not plain ASCII) are checked by size and time instead.
 */
export class StoredPages {
  private readonly books = new Map<string, KnownBook>();

  constructor(private readonly buffers = new PageBuffers()) {}

  /** Page `n`'s bytes and type when it is stored as it is in the book's file; undefined when the archive must read it. */
  async read(book: string, n: number, source: PageFileSource): Promise<StoredPage | undefined> {
    let known = this.books.get(book);
    if (known && known.places.length === 0) {
      // Nothing learnt of this file: the archive reads it, unless the file has changed since (then learn again).
      if (sameFile(await source.file(), known.file)) return undefined;
      this.forget(book, known);
      known = undefined;
    }
    if (known && !(known.places[3 * (n - 1)]! >= 0)) return undefined;
    // A book not known yet: its file as just resolved (its size says where its directory ends).
    const resolved = known ? undefined : await source.file();
    const path = known?.file.absolutePath ?? resolved!.absolutePath;
    let fd: number;
    try {
      fd = await openFile(path);
    } catch {
      // Gone, replaced by a link, unreadable: the archive path says why, with the usual errors.
      if (known) this.forget(book, known);
      return undefined;
    }
    let learnt = false;
    try {
      if (known?.statEachRead) {
        const info = await statOf(fd);
        if (!info.isFile() || !sameFile({ absolutePath: path, size: info.size, mtimeMs: info.mtimeMs }, known.file)) {
          this.forget(book, known);
          return undefined;
        }
      }
      if (!known) {
        // A file changed between its resolution and now has no directory where its size said: nothing is learnt.
        known = await this.learn(fd, resolved!, source);
        learnt = true;
        this.remember(book, known);
        if (!(known.places[3 * (n - 1)]! >= 0)) return undefined;
      }
      const page = await this.readPlace(fd, known, n, source);
      // A place just learnt that does not hold its page (an archive whose local headers disagree with its
      // directory) is not tried again for this file: the archive reads it.
      if (!page && learnt) this.remember(book, { ...known, places: NOT_LEARNT, statEachRead: true });
      else if (!page) this.forget(book, known);
      return page;
    } catch {
      if (known) this.forget(book, known);
      return undefined;
    } finally {
      release(fd);
    }
  }

  private remember(book: string, known: KnownBook): void {
    this.books.delete(book);
    this.books.set(book, known);
    if (this.books.size > MAX_BOOKS) this.books.delete(this.books.keys().next().value!);
  }

  private forget(book: string, known: KnownBook): void {
    if (this.books.get(book) === known) this.books.delete(book);
  }

  /** The places of the book's pages, from its central directory; none when it is no ordinary archive. */
  private async learn(fd: number, file: BookFile, source: PageFileSource): Promise<KnownBook> {
    const none: KnownBook = { file, places: NOT_LEARNT, statEachRead: true };
    const size = file.size;
    if (size < END_BYTES) return none;
    const tailLength = Math.min(size, TAIL_BYTES);
    const tailStart = size - tailLength;
    const tail = Buffer.allocUnsafe(tailLength);
    if ((await readAt(fd, tail, tailLength, tailStart)) !== tailLength) return none;
    const end = endRecord(tail);
    if (end < 0 || (end >= 20 && tail.readUInt32LE(end - 20) === ZIP64_LOCATOR_SIGNATURE)) return none;
    const directoryStart = tail.readUInt32LE(end + 16);
    if (directoryStart > tailStart + end || size - directoryStart > MAX_DIRECTORY_BYTES) return none;
    let directory: Buffer;
    if (directoryStart >= tailStart) directory = tail.subarray(directoryStart - tailStart);
    else {
      directory = Buffer.allocUnsafe(size - directoryStart);
      const head = tailStart - directoryStart;
      if ((await readAt(fd, directory, head, directoryStart)) !== head) return none;
      tail.copy(directory, head);
    }
    // Rebased: from the directory's first record to the file's end is an archive of its own, directory at 0.
    directory.writeUInt32LE(0, directory.length - (tailLength - end) + 16);
    const entries = readCentralDirectory(directory);
    if (!entries || entries.length > DEFAULT_LIMITS.maxEntries) return none;
    // The archive's members by name (ZipArchive's rules): files only, the first of a name, within the size limit.
    const byName = new Map<string, (typeof entries)[number]>();
    let declared = 0;
    for (const entry of entries) {
      const name = normaliseName(entry.name);
      if (name.endsWith('/') || (entry.externalFileAttributes & 0x10) !== 0) continue;
      declared += entry.uncompressedSize;
      if (!byName.has(name)) byName.set(name, entry);
    }
    if (declared > DEFAULT_LIMITS.maxTotalBytes) return none;
    const names = await source.pageNames();
    const places = new Float64Array(3 * names.length);
    let statEachRead = false;
    for (const [i, name] of names.entries()) {
      const entry = byName.get(name);
      // A page the directory lacks: the book changed since its analysis, and the archive decides its pages.
      if (!entry) return none;
      const flags = entry.generalPurposeBitFlag;
      const stored = entry.method === STORED && (flags & ENCRYPTED) === 0 && entry.uncompressedSize <= DEFAULT_LIMITS.maxEntryBytes;
      places[3 * i] = stored ? entry.localHeaderOffset : NaN;
      places[3 * i + 1] = entry.uncompressedSize;
      places[3 * i + 2] = nameHash(name);
      if ((flags & DATA_DESCRIPTOR) !== 0 || entry.name !== name || !plainName(name)) statEachRead = true;
    }
    return { file, places, statEachRead };
  }

  /** Page `n` from its place, once the local header there is the page's: its bytes and media type. */
  private async readPlace(fd: number, known: KnownBook, n: number, source: PageFileSource): Promise<StoredPage | undefined> {
    const at = known.places[3 * (n - 1)]!;
    const length = known.places[3 * (n - 1) + 1]!;
    // One read for the header, its name and extra field, and the bytes (unless the header is unusually long).
    const wanted = LOCAL_HEADER_BYTES + HEADER_SLACK + length;
    const buffer = this.buffers.take(wanted);
    const giveBack = () => this.buffers.give(buffer);
    try {
      const bytesRead = await readAt(fd, buffer, wanted, at);
      const data = await this.pageIn(fd, buffer, bytesRead, known, n, at, length);
      if (!data) {
        giveBack();
        return undefined;
      }
      // Named as the archive names it (CbzReader.readPage): by its bytes, else by its name.
      const mediaType = sniffImageType(data) ?? imageTypeFromName((await source.pageNames())[n - 1] ?? '');
      const type = mediaType ?? 'application/octet-stream';
      if (data.buffer === buffer.buffer) return { data, mediaType: type, release: giveBack };
      giveBack();
      return { data, mediaType: type, release: () => undefined };
    } catch (err) {
      giveBack();
      throw err;
    }
  }

  /** The page's bytes in `buffer` (read from `at`), once its local header is the page's; undefined when it is not. */
  private async pageIn(
    fd: number,
    buffer: Buffer,
    bytesRead: number,
    known: KnownBook,
    n: number,
    at: number,
    length: number,
  ): Promise<Buffer | undefined> {
    if (bytesRead < LOCAL_HEADER_BYTES || buffer.readUInt32LE(0) !== LOCAL_SIGNATURE) return undefined;
    const flags = buffer.readUInt16LE(6);
    if ((flags & ENCRYPTED) !== 0 || buffer.readUInt16LE(8) !== STORED) return undefined;
    if ((flags & DATA_DESCRIPTOR) === 0 && (buffer.readUInt32LE(18) !== length || buffer.readUInt32LE(22) !== length)) return undefined;
    const nameLength = buffer.readUInt16LE(26);
    const start = LOCAL_HEADER_BYTES + nameLength + buffer.readUInt16LE(28);
    if (!known.statEachRead) {
      if (LOCAL_HEADER_BYTES + nameLength > bytesRead) return undefined;
      if (nameHash(buffer, LOCAL_HEADER_BYTES, LOCAL_HEADER_BYTES + nameLength) !== known.places[3 * (n - 1) + 2]) return undefined;
    }
    if (start + length <= bytesRead) return buffer.subarray(start, start + length);
    // A header longer than the slack: the bytes in a buffer of their own.
    const data = Buffer.allocUnsafe(length);
    return (await readAt(fd, data, length, at + start)) === length ? data : undefined;
  }
}
